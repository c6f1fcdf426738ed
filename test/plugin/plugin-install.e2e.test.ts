/**
 * The plugin as a user gets it: a git repository served over HTTP, added with
 * the pinned Claude Code's `claude plugin marketplace add` and installed with
 * `claude plugin install` into a fresh HOME, from a copy of this working tree
 * without node_modules or dist/. `claude mcp list` shows the server connected,
 * and a `claude -p` whose model calls run_agent gets a delegated job done on a
 * simulated llama-server — run by the Claude Code that started the server,
 * since the plugin has no Agent SDK of its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledClaudePath } from '../../src/jobs/claude/claude-binary.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { claudeEnv } from '../e2e/claude-cli.js';
import { makeRepo } from '../helpers/git-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { startSimulator, type Simulator } from '../sim/index.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const RUN_AGENT = 'mcp__plugin_localagents_localagents__run_agent';
const CLAUDE = bundledClaudePath()!;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=dev@example.com', '-c', 'user.name=Dev', ...args], { cwd, encoding: 'utf8' });
}

/** The working tree as committed files would be: tracked and unignored files only (no node_modules, no dist/). */
function publishWorkingTree(root: string): string {
  const source = join(root, 'source');
  const files = git(REPO_ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter((f) => f && !f.startsWith('node_modules'));
  for (const file of files) {
    try {
      mkdirSync(dirname(join(source, file)), { recursive: true });
      cpSync(join(REPO_ROOT, file), join(source, file));
    } catch {
      // deleted in the working tree but still in the index
    }
  }
  git(source, 'init', '-q', '-b', 'main');
  git(source, 'add', '-A');
  git(source, 'commit', '-q', '-m', 'localagents');
  git(root, 'clone', '-q', '--bare', source, join(root, 'served', 'localagents.git'));
  return join(root, 'served');
}

function claude(args: string[], cwd: string, env: Record<string, string>, timeoutMs = 150_000): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out, stdout });
    });
  });
}

describe('the plugin installed from a git URL', () => {
  let root: string;
  let gitServer: GitHttpServer;
  let caller: Simulator;
  let gpu: Simulator;
  let env: Record<string, string>;
  let project: string;

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'la-plugin-install-')));
    gitServer = await startGitHttpServer(publishWorkingTree(root));
    // The calling Claude's model: asks for one delegation, then reports.
    caller = await startSimulator({
      flavor: 'llama.cpp',
      modelId: 'caller-model',
      script: (req) => {
        const tools = ((req.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
        const said = JSON.stringify(req.messages);
        if (said.includes(`"name":"${RUN_AGENT}"`)) return { text: 'The local agent reported back.' };
        if (tools.includes(RUN_AGENT)) return { text: 'Delegating.', toolUse: { name: RUN_AGENT, input: { task: 'Say that the plugin works.', wait_s: 100 } } };
        // Claude Code connects MCP servers in the background; a model waits for them with this tool.
        if (tools.includes('WaitForMcpServers') && !said.includes('"name":"WaitForMcpServers"')) return { text: 'Waiting for the servers.', toolUse: { name: 'WaitForMcpServers', input: {} } };
        return { text: `no ${RUN_AGENT} among the tools` };
      },
    });
    gpu = await startSimulator({ flavor: 'llama.cpp', modelId: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', script: [{ text: 'The plugin works.' }] });
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(join(root, 'models.yaml'), `endpoints:\n  gpu:\n    base_url: ${gpu.url}\n`);
    project = makeRepo();
    env = claudeEnv(caller.url, home, join(home, '.claude'), caller.modelId, {
      LOCALAGENTS_CONFIG: join(root, 'models.yaml'),
      LOCALAGENTS_STATE_DIR: join(root, 'state'),
      MCP_TIMEOUT: '60000',
      // The calling model is scripted: MCP tools in the tools list at once, not behind ToolSearch.
      ENABLE_TOOL_SEARCH: 'false',
    });
  }, 60_000);

  afterAll(async () => {
    await gitServer?.close();
    await caller?.close();
    await gpu?.close();
  });

  it('installs with the pinned Claude Code, connects, and runs a delegated job', async () => {
    const url = gitServer.url('localagents.git');
    const added = await claude(['plugin', 'marketplace', 'add', url], project, env);
    expect(added.out).toContain('Successfully added marketplace: localagents');
    const installed = await claude(['plugin', 'install', 'localagents@localagents'], project, env);
    expect(installed.out).toContain('Successfully installed plugin: localagents@localagents');
    const cached = join(env.CLAUDE_CONFIG_DIR!, 'plugins', 'cache', 'localagents', 'localagents');
    const [version] = readdirSync(cached);
    expect(readdirSync(join(cached, version!))).not.toContain('node_modules');

    const listed = await claude(['mcp', 'list'], project, env);
    expect(listed.out).toMatch(/plugin:localagents:localagents: .*✔ Connected/);

    const run = await claude(['-p', 'Delegate saying that the plugin works.', '--output-format', 'json', '--allowedTools', `${RUN_AGENT},WaitForMcpServers`], project, env, 240_000);
    expect(run.code, run.out).toBe(0);
    const [jobId] = readdirSync(join(root, 'state', 'jobs'));
    const record = JSON.parse(readFileSync(join(root, 'state', 'jobs', jobId!, 'job.json'), 'utf8')) as JobRecord;
    expect(record).toMatchObject({ status: 'succeeded', result: 'The plugin works.', claude_code: { path: CLAUDE, source: 'parent', version: expect.stringMatching(/^2\.1\./) as unknown } });
    expect(JSON.parse(run.stdout) as { result?: string }).toMatchObject({ result: 'The local agent reported back.' });
  }, 400_000);
});
