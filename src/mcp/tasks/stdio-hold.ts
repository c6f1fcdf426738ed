/**
 * The stdio server's first answer, before the rest of it has loaded. Claude Code probes a stdio server with
 * server/discover and speaks 2025-11-25 (no tasks, so no background task at once) when no answer comes within
 * 3 s of starting it; loading the whole server takes 2–9 s on a busy machine (docs/claude-code-wire.md §7).
 * `holdStdio` answers the probe from this small module with the full server's own words (discovery.ts) and
 * keeps every other byte, in order, for the full server, which takes the stream with `takeStdio`.
 *
 * The hold lives on a global: the plugin loads this module from its own small file (plugin/stdio-hold.mjs)
 * before the server's bundle, which has its own copy of it.
 */
import { PassThrough, type Readable } from 'node:stream';
import { discoverAnswer } from './discovery.js';

const KEY = Symbol.for('localagents.stdio-hold');
/** A probe is a few hundred bytes; a longer first line is not one, and goes on to the full server unread. */
const MAX_LINE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/**
 * How long the caller of holdStdio waits for the client's first message before loading the rest (which blocks
 * the event loop for seconds). Clients speak first, at once (Claude Code writes its probe as it starts us), so
 * the wait ends on that message; the bound is for a client that waits for the server.
 */
const FIRST_MESSAGE_WAIT_MS = 1000;

interface Hold {
  /** Everything the hold did not answer, from the first byte on. */
  readonly rest: PassThrough;
  release(): void;
}

type Holder = { [KEY]?: Hold };

function isProbe(line: Buffer): { id: string | number } | undefined {
  try {
    const message = JSON.parse(line.toString('utf8')) as unknown;
    if (typeof message !== 'object' || message === null) return undefined;
    const { method, id } = message as { method?: unknown; id?: unknown };
    return method === 'server/discover' && (typeof id === 'string' || typeof id === 'number') ? { id } : undefined;
  } catch {
    return undefined; // not JSON: the full server says so
  }
}

/**
 * Starts answering server/discover on stdin (once per process; never on a terminal). Resolves once the client's
 * first message is answered or kept: load the rest after that, as loading it leaves no turn to read stdin.
 */
export function holdStdio(version: string): Promise<void> {
  const holder = globalThis as Holder;
  const stdin = process.stdin;
  if (holder[KEY] !== undefined || stdin.isTTY) return Promise.resolve();
  let firstLine: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    const timer = setTimeout(() => firstLine(), FIRST_MESSAGE_WAIT_MS);
    firstLine = () => {
      clearTimeout(timer);
      // Until the full server takes the stream, reading it must not keep alive a process whose start failed.
      (stdin as { unref?: () => void }).unref?.();
      resolve();
    };
  });
  const rest = new PassThrough();
  let pending: Buffer = Buffer.alloc(0);
  let holding = true;
  const onData = (chunk: Buffer): void => {
    if (!holding) {
      rest.write(chunk);
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    for (let end = pending.indexOf(NEWLINE); end >= 0; end = pending.indexOf(NEWLINE)) {
      const line = pending.subarray(0, end + 1);
      pending = pending.subarray(end + 1);
      const probe = isProbe(line);
      if (probe === undefined) rest.write(line);
      else process.stdout.write(`${JSON.stringify(discoverAnswer(probe.id, version))}\n`);
      firstLine();
    }
    if (pending.length > MAX_LINE_BYTES) {
      release();
      firstLine();
    }
  };
  const release = (): void => {
    if (!holding) return;
    holding = false;
    if (pending.length > 0) rest.write(pending);
    pending = Buffer.alloc(0);
  };
  stdin.on('data', onData);
  stdin.once('end', () => {
    firstLine();
    rest.end();
  });
  stdin.once('error', (err) => {
    firstLine();
    rest.destroy(err);
  });
  holder[KEY] = { rest, release };
  return first;
}

/** The stream the full server reads: the hold's, from the first byte it did not answer on, or stdin itself. */
export function takeStdio(): Readable {
  const hold = (globalThis as Holder)[KEY];
  if (hold === undefined) return process.stdin;
  hold.release();
  (process.stdin as { ref?: () => void }).ref?.();
  return hold.rest;
}
