/**
 * Files that hold a secret or a record are the owner's alone, whatever was
 * there and whatever the umask (issue 24, finding 6): the real CLI serving MCP
 * over HTTP rewrites a token file left at 0644 in a 0755 state directory as
 * 0600 in 0700; under umask 000 every file it makes is still 0600; doctor
 * says when the state or config directory is open to other users.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli, startCli, type Started } from '../cli/cli-process.js';
import { waitFor } from '../helpers/processes.js';
import { startSimulator } from '../sim/index.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function stop(server: Started): Promise<void> {
  server.child.kill('SIGTERM');
  await server.result;
}

function dirsWithConfig(): E2EDirs {
  const dirs = makeDirs();
  writeConfig(dirs, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
  return dirs;
}

describe('file modes are enforced, not hoped for', { timeout: 120_000 }, () => {
  it('finding 6: a token file left at 0644 in a 0755 state directory is rewritten 0600 in 0700', async () => {
    const dirs = dirsWithConfig();
    const port = await freePort();
    const tokenFile = join(dirs.state, `mcp-http-${port}.token`);
    mkdirSync(dirs.state, { mode: 0o755 });
    chmodSync(dirs.state, 0o755);
    writeFileSync(tokenFile, 'an-old-token\n', { mode: 0o644 });
    chmodSync(tokenFile, 0o644);

    const server = startCli(['--config', dirs.config, '--transport', 'http', '--port', String(port)], { cwd: dirs.repo, env: serverEnv(dirs) });
    try {
      await waitFor(() => server.stderr().includes('bearer token (new each start'), 60_000, 'the token line');
      expect(readFileSync(tokenFile, 'utf8')).not.toBe('an-old-token\n');
      expect(mode(tokenFile)).toBe('600');
      expect(mode(dirs.state)).toBe('700');
    } finally {
      await stop(server);
    }
  });

  it('same class: under umask 000 the state directory, token file and dashboard-url (left at 0666) are 0700 / 0600', async () => {
    const dirs = dirsWithConfig();
    const port = await freePort();
    mkdirSync(dirs.state, { mode: 0o777 });
    chmodSync(dirs.state, 0o777);
    writeFileSync(join(dirs.state, 'dashboard-url'), 'http://127.0.0.1:1/?token=old\n');
    chmodSync(join(dirs.state, 'dashboard-url'), 0o666);
    const args = [BIN, '--config', dirs.config, '--transport', 'http', '--port', String(port), '--dashboard'].map((a) => `'${a}'`).join(' ');
    const child = spawn('sh', ['-c', `umask 000 && exec '${process.execPath}' ${args}`], { cwd: dirs.repo, env: serverEnv(dirs), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('bearer token (new each start'), 60_000, 'the token line');
      expect(readFileSync(join(dirs.state, 'dashboard-url'), 'utf8')).not.toContain('token=old');
      expect(mode(join(dirs.state, 'dashboard-url'))).toBe('600');
      expect(mode(join(dirs.state, `mcp-http-${port}.token`))).toBe('600');
      expect(mode(dirs.state)).toBe('700');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });

  it('doctor fails on a state directory others can read and warns on such a config directory', async () => {
    const dirs = dirsWithConfig();
    mkdirSync(dirs.state, { mode: 0o755 });
    chmodSync(dirs.state, 0o755);
    chmodSync(dirs.root, 0o755); // the folder that holds models.yaml
    const doctor = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`FAIL state directory: ${dirs.state} can be read by other users (mode 755), and it holds job records, transcripts and bearer tokens`);
    expect(doctor.stdout).toContain(`     fix: chmod 700 ${dirs.state}`);
    expect(doctor.stdout).toContain(`ok   config directory: warning: ${dirs.root} can be read by other users (mode 755)`);
    chmodSync(dirs.state, 0o700);
    chmodSync(dirs.root, 0o700);
    const fixed = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: serverEnv(dirs) });
    expect(fixed.stdout).not.toContain('FAIL state directory');
    expect(fixed.stdout).not.toContain('can be read by other users');
    expect(fixed.stdout).not.toContain('config directory');
    expect(existsSync(dirs.state)).toBe(true);
  });

  it('same class: a real job under umask 000 with jobs/ left 0755 leaves every folder 0700 and every file 0600', async () => {
    const dirs = makeDirs();
    const sim = await startSimulator({ flavor: 'llama.cpp', slots: 1 });
    try {
      writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
      sim.setScript(() => ({ text: 'Nothing to do.' }));
      mkdirSync(join(dirs.state, 'jobs'), { recursive: true, mode: 0o755 });
      chmodSync(join(dirs.state, 'jobs'), 0o755);
      const args = [BIN, '--config', dirs.config, 'run', '--no-follow', 'Say nothing.'].map((a) => `'${a}'`).join(' ');
      const run = await new Promise<number | null>((resolve) => {
        const child = spawn('sh', ['-c', `umask 000 && exec '${process.execPath}' ${args}`], { cwd: dirs.repo, env: serverEnv(dirs), stdio: 'ignore' });
        child.once('close', resolve);
      });
      expect(run).toBe(0);
      const loose = walk(dirs.state).filter(({ path, dir }) => mode(path) !== (dir ? '700' : '600'));
      expect(loose).toEqual([]);
      expect(walk(join(dirs.state, 'jobs')).some(({ path }) => path.endsWith('requests.jsonl'))).toBe(true);
    } finally {
      await sim.close();
    }
  });
});

/** Every folder and file below `root`, with whether it is a folder. */
function walk(root: string): Array<{ path: string; dir: boolean }> {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) => {
    const path = join(root, e.name);
    return e.isDirectory() ? [{ path, dir: true }, ...walk(path)] : [{ path, dir: false }];
  });
}
