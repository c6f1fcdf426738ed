/**
 * An interactive Claude Code in a pseudo-terminal, driven as a person would: tmux (Debian package `tmux`)
 * holds the terminal, we type into it and read its screen. tmux rather than an npm pty module: no native
 * build, and its own server per test (`-S <socket in the test folder>`) is ended without touching any other tmux.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundledClaudePath } from '../../src/jobs/claude/claude-binary.js';
import { until } from '../helpers/processes.js';

const run = promisify(execFile);

export interface PtyClaude {
  /** Types `text` and presses Enter. */
  say(text: string): Promise<void>;
  screen(): Promise<string>;
  /** True once the screen shows `text` (within `timeoutMs`). */
  shows(text: string, timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface PtyOptions {
  readonly cwd: string;
  /** CLAUDE_CONFIG_DIR: made here with onboarding done, the folder trusted and the API key accepted. */
  readonly configDir: string;
  readonly home: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly mcpConfig: Record<string, unknown>;
  readonly allowedTools: readonly string[];
}

/** What a first start would ask a person once; answered as they would, so the session opens on the prompt. */
function prepareConfig(options: PtyOptions): string {
  mkdirSync(options.configDir, { recursive: true });
  writeFileSync(join(options.configDir, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: ['local'], rejected: [] },
    projects: { [options.cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }));
  const mcp = join(options.configDir, 'mcp.json');
  writeFileSync(mcp, JSON.stringify({ mcpServers: options.mcpConfig }));
  return mcp;
}

export async function startPtyClaude(options: PtyOptions): Promise<PtyClaude> {
  const claude = bundledClaudePath();
  if (!claude) throw new Error('the Agent SDK has no bundled claude binary for this platform');
  const mcp = prepareConfig(options);
  // The server's socket in the test's own folder: ended with kill-server, it leaves nothing in the user's /tmp/tmux-UID.
  const socket = join(options.home, 'tmux.sock');
  const tmux = async (...args: string[]): Promise<string> => (await run('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' })).stdout;
  const env = {
    HOME: options.home, CLAUDE_CONFIG_DIR: options.configDir, ANTHROPIC_BASE_URL: options.baseUrl, ANTHROPIC_API_KEY: 'local', ANTHROPIC_MODEL: options.model,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin',
  };
  await tmux('new-session', '-d', '-s', 'claude', '-x', '200', '-y', '60', '-c', options.cwd, ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    claude, '--mcp-config', mcp, '--strict-mcp-config', '--allowedTools', options.allowedTools.join(','));
  const screen = (): Promise<string> => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'claude');
  const shows = async (text: string, timeoutMs = 60_000): Promise<boolean> => until(async () => (await screen()).includes(text), timeoutMs, 200);
  // The input box's prompt: the footer under it differs between versions (2.1.332 has no "? for shortcuts").
  if (!(await shows('❯', 60_000))) throw new Error(`Claude Code did not reach its prompt:\n${await screen()}`);
  return {
    async say(text) {
      await tmux('send-keys', '-t', 'claude', '-l', text);
      // Enter once the text is on screen: sent with it, the input box would take both as one paste.
      if (!(await shows(text, 10_000))) throw new Error(`typed text did not appear:\n${await screen()}`);
      await tmux('send-keys', '-t', 'claude', 'Enter');
    },
    screen,
    shows,
    async close() {
      await tmux('kill-server').catch(() => undefined);
    },
  };
}
