/**
 * Class 10 of issue #11: a mistyped safety option must never be ignored. Every
 * tool refuses unknown argument keys (naming the key and the closest valid
 * one), a blank brief, a relative cwd and an allowed_tools list Claude Code's
 * command line cannot carry — before any job exists — and no error echoes a
 * huge argument back whole. Official MCP Client against the real server.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOut } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, startInProcess, textOf, type InProcess } from '../reliability/in-process.js';

const JOB_ID = '20261129-111500-7gk2mq4xrz9d';

/** The smallest valid call of each tool; a tool missing here fails the first test, so new tools are covered. */
const VALID_ARGS: Record<string, Record<string, unknown>> = {
  list_models: {},
  run_agent: { task: 'Say done.' },
  wait_job: { job_id: JOB_ID },
  jobs: { job_id: JOB_ID },
  cancel_job: { job_id: JOB_ID },
  register_endpoint: { name: 'spare', base_url: 'http://127.0.0.1:9' },
  register_model: { name: 'spare-model' },
  local_complete: { prompt: 'hi' },
};

describe('strict tool arguments', () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  const jobDirs = (): string[] => (existsSync(join(h.dirs.state, 'jobs')) ? readdirSync(join(h.dirs.state, 'jobs')) : []);

  it('every tool publishes additionalProperties: false and refuses an unknown key, naming it and listing the real ones', async () => {
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(VALID_ARGS).sort());
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const result = await h.call(tool.name, { ...VALID_ARGS[tool.name], zzqx_bogus: 1 });
      expect(result.isError, tool.name).toBe(true);
      const known = Object.keys(tool.inputSchema.properties ?? {}).join(', ');
      expect(textOf(result), tool.name).toBe(
        `MCP error -32602: Input validation error: Invalid arguments for tool ${tool.name}: unknown argument "zzqx_bogus". ${tool.name} takes: ${known}`,
      );
    }
    expect(jobDirs()).toEqual([]);
  });

  it.each([
    ['isolaton', 'worktree', 'isolation'],
    ['permision_mode', 'plan', 'permission_mode'],
    ['allowedTools', ['Read'], 'allowed_tools'],
    ['wait', 5, 'wait_s'],
  ])('run_agent(%s=%j) is refused with "did you mean %s", and no job starts', async (key, value, meant) => {
    const result = await h.call('run_agent', { wait_s: 0, task: 'Write a file called pwned.txt.', [key]: value });
    expect(textOf(result)).toContain(`unknown argument "${key}" — did you mean ${meant}?`);
    expect(jobDirs()).toEqual([]);
    expect(gitOut(h.dirs.repo, 'status', '--porcelain')).toBe('');
  });

  it('names the closest argument of other tools too (job_log tail_line, register_endpoint api_key)', async () => {
    expect(textOf(await h.call('jobs', { job_id: JOB_ID, tail_line: 5 }))).toContain('unknown argument "tail_line" — did you mean tail_lines?');
    // A literal key is not something a tool call may hand us: the only key argument names a variable, under the rules of models.yaml.
    expect(textOf(await h.call('register_endpoint', { name: 'x', base_url: 'http://127.0.0.1:9', api_key: 'sk-1' }))).toContain(
      'unknown argument "api_key" — did you mean api_key_env?',
    );
    expect(existsSync(join(h.dirs.root, 'models.local.yaml'))).toBe(false);
  });

  it('refuses a whitespace-only task and a relative cwd before a job exists', async () => {
    expect(textOf(await h.call('run_agent', { wait_s: 0, task: ' \n\t  ' }))).toMatch(/task: is only whitespace|is only whitespace; write the brief the local model should work from at task$/);
    const relative = textOf(await h.call('run_agent', { wait_s: 0, task: 'Say done.', cwd: 'sub/dir' }));
    expect(relative).toMatch(/must be an absolute path \(a relative one would resolve against the server's own working directory\) at cwd$/);
    expect(jobDirs()).toEqual([]);
  });

  it('refuses allowed_tools that would overflow Claude Code\'s command line (E2BIG) before a job exists', async () => {
    // 200 rules of 900 bytes: 180 kB as one argument, over Linux's 128 KiB per-argument limit.
    const tools = Array.from({ length: 200 }, (_, i) => `Bash(${String(i).padStart(3, '0')}${'x'.repeat(890)})`);
    const text = textOf(await h.call('run_agent', { wait_s: 0, task: 'Say done.', allowed_tools: tools }));
    expect(text).toMatch(/together longer than the 32768 bytes Claude Code's command line can carry; name fewer tools or shorter rules at allowed_tools$/);
    expect(jobDirs()).toEqual([]);
  });

  it('never echoes a huge argument back whole', async () => {
    const huge = 'q'.repeat(900_000);
    for (const [tool, args] of [
      ['run_agent', { wait_s: 0, task: 'Say done.', model: huge }],
      ['local_complete', { prompt: 'hi', model: huge }],
      ['list_models', { model: huge }],
      ['run_agent', { wait_s: 0, task: 'Say done.', cwd: `/${huge}` }],
      ['run_agent', { wait_s: 0, task: 'Say done.', [huge]: 1 }],
      ['jobs', { job_id: huge }],
    ] as const) {
      const result = await h.call(tool, args);
      expect(result.isError, tool).toBe(true);
      expect(JSON.stringify(result).length, `${tool} ${Object.keys(args).join(',')}`).toBeLessThan(4_000);
    }
    expect(jobDirs()).toEqual([]);
  });
});
