/**
 * The popular alternative, for comparison: claude-code-router (npm
 * @musistudio/claude-code-router, the 1.0 line that runs on Node 20), started
 * headless on 127.0.0.1 with its pass-through "Anthropic" transformer in
 * front of the stub. Installed on first use into node_modules/.cache (not a
 * devDependency: 120 MB that no test needs); skipped with a note when it
 * cannot be installed (offline) or BENCH_GATEWAY=0.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const GATEWAY_PACKAGE = '@musistudio/claude-code-router';
export const GATEWAY_VERSION = '1.0.73';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const INSTALL_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'localagents-bench', `ccr-${GATEWAY_VERSION}`);
const CLI = join(INSTALL_DIR, 'node_modules', '@musistudio', 'claude-code-router', 'dist', 'cli.js');

export interface Gateway {
  readonly url: string;
  readonly pid: number;
  close(): Promise<void>;
}

async function ensureInstalled(): Promise<void> {
  if (existsSync(CLI)) return;
  mkdirSync(INSTALL_DIR, { recursive: true });
  writeFileSync(join(INSTALL_DIR, 'package.json'), '{"private":true}\n');
  await new Promise<void>((ok, fail) => {
    execFile(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', `${GATEWAY_PACKAGE}@${GATEWAY_VERSION}`],
      { cwd: INSTALL_DIR, timeout: 240_000 },
      (err, _stdout, stderr) => (err ? fail(new Error(`npm install ${GATEWAY_PACKAGE} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`)) : ok()),
    );
  });
}

/** A port nothing listens on now. The router takes its port from a config file, so bind-then-release is the only way. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as AddressInfo).port; // TCP listener: an AddressInfo
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

async function waitListening(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`claude-code-router exited with ${child.exitCode}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(500) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100)); // not listening yet
    }
  }
  throw new Error(`claude-code-router did not listen on ${url} within ${timeoutMs} ms`);
}

export async function startGateway(backendPort: number): Promise<Gateway> {
  if (process.env.BENCH_GATEWAY === '0') throw new Error('skipped (BENCH_GATEWAY=0)');
  await ensureInstalled();
  const home = mkdtempSync(join(tmpdir(), 'la-bench-ccr-'));
  const port = await freePort();
  mkdirSync(join(home, '.claude-code-router'));
  writeFileSync(
    join(home, '.claude-code-router', 'config.json'),
    JSON.stringify({
      LOG: false,
      HOST: '127.0.0.1',
      PORT: port,
      NON_INTERACTIVE_MODE: true,
      Providers: [{ name: 'stub', api_base_url: `http://127.0.0.1:${backendPort}/v1/messages`, api_key: 'bench', models: ['bench-model'], transformer: { use: ['Anthropic'] } }],
      Router: { default: 'stub,bench-model' },
    }),
  );
  const child = spawn(process.execPath, [CLI, 'start'], { env: { PATH: process.env.PATH ?? '', HOME: home }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitListening(url, child, 20_000);
  return {
    url,
    pid: child.pid ?? -1,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
