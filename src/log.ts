/**
 * A tiny levelled logger to stderr. stdout belongs to the MCP stdio transport,
 * so nothing in src/ writes there. Level from LOCALAGENTS_LOG (error|warn|info|debug).
 */
import { debuglog, format } from 'node:util';
import { redactSecrets } from './secrets/redact.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(msg: string, ...args: unknown[]): void;
  warn(msg: string, ...args: unknown[]): void;
  info(msg: string, ...args: unknown[]): void;
  debug(msg: string, ...args: unknown[]): void;
}

export function createLogger(level: LogLevel = levelFromEnv(), sink: (line: string) => void = writeStderr): Logger {
  const nodeDebug = debuglog('localagents');
  const emit = (at: LogLevel, msg: string, args: unknown[]): void => {
    const line = redactSecrets(format(msg, ...args));
    if (ORDER[at] <= ORDER[level]) sink(`localagents ${at}: ${line}\n`);
    else if (at === 'debug') nodeDebug(line);
  };
  return {
    error: (msg, ...args) => emit('error', msg, args),
    warn: (msg, ...args) => emit('warn', msg, args),
    info: (msg, ...args) => emit('info', msg, args),
    debug: (msg, ...args) => emit('debug', msg, args),
  };
}

function levelFromEnv(): LogLevel {
  const raw = process.env.LOCALAGENTS_LOG;
  return raw === 'error' || raw === 'warn' || raw === 'info' || raw === 'debug' ? raw : 'warn';
}

function writeStderr(line: string): void {
  process.stderr.write(line);
}

/** A logger that drops everything, for tests and library use. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
