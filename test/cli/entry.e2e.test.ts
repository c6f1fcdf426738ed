/**
 * How a person meets the command: bare `localagents` on a terminal says what it
 * is and what to try (and is still the MCP server on pipes, as Claude Code
 * starts it); one Ctrl-C or one SIGTERM ends the server even while stdin stays
 * open; --version, `help <command>`, and a did-you-mean for a typo.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { runCli, runCliInPty, type CliOptions } from './cli-process.js';
import { until } from '../helpers/processes.js';

const INIT_REQUEST = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pty', version: '1' } } })}\n`;

describe('the localagents command itself', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let opts: CliOptions;

  beforeAll(() => {
    dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    opts = { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config }) };
  });
  afterAll(() => undefined);

  it('bare on a terminal: what it is and the commands to try, then exits 0', async () => {
    const result = await runCliInPty([], [], opts);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('localagents: the MCP server that runs delegated Claude Code sessions');
    expect(result.stdout).toContain('localagents doctor --self-test');
    expect(result.stdout).toContain('localagents init');
  });

  it('on a terminal, `localagents mcp` serves MCP and the first Ctrl-C ends it', async () => {
    const result = await runCliInPty(['mcp'], [{ wait: '', send: INIT_REQUEST }, { wait: '"serverInfo"', send: '\u0003' }], opts);
    expect(result.stdout).toContain('"serverInfo"');
    expect(result.code).toBe(0);
  });

  it('on pipes it is the MCP server; one SIGTERM ends it while stdin stays open', async () => {
    const child = spawn(process.execPath, [BIN], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.write(INIT_REQUEST);
    await until(() => out.includes('"protocolVersion"'), 60_000);
    expect(out).toContain('"serverInfo"');
    let code: number | null | 'still running' = 'still running';
    child.on('exit', (c) => (code = c));
    child.kill('SIGTERM');
    // Generous: only "it ends on the first signal" matters, not how fast on a loaded machine.
    await until(() => code !== 'still running', 20_000);
    if (code === 'still running') child.kill('SIGKILL');
    expect(code).toBe(0);
    child.stdin.end();
  });

  it('--version, help <command>, and did-you-mean for an unknown command', async () => {
    const expected = `${(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`;
    // commander answers all three, through the one door: the same line.
    for (const args of [['--version'], ['-V'], ['--transport', 'stdio', '--version']]) expect(await runCli(args, opts)).toMatchObject({ code: 0, stdout: expected, stderr: '' });
    // `node dist/main.js`, as setups made from an earlier README start it, is the same program.
    const legacy = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'main.js'), '--config', dirs.config, 'jobs', '--all', '--json'], { cwd: dirs.repo, env: opts.env, encoding: 'utf8' });
    expect(legacy).toMatchObject({ status: 0, stdout: (await runCli(['--config', dirs.config, 'jobs', '--all', '--json'], opts)).stdout, stderr: '' });
    const help = await runCli(['help', 'run'], opts);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: localagents run');
    const typo = await runCli(['modles'], opts);
    expect(typo.code).toBe(2);
    expect(typo.stderr.split('\n')[0]).toBe("error: unknown command 'modles' — did you mean models?");
  });

  it('dashboard --help states each default once', async () => {
    const help = await runCli(['dashboard', '--help'], opts);
    expect(help.stdout).toContain('--port <n>  port to listen on (default: any free port)\n');
    expect(help.stdout).not.toMatch(/\(default: [^)]*\) \(default:/);
  });
});
