/**
 * Every tool argument out of range, of the wrong type, or hostile (job ids that
 * are paths, a 5 MB brief, bytes that are not UTF-8), through the official MCP
 * client. Each gets an error result naming the argument (our own messages
 * word for word), nothing the user wrote changes, and the server keeps serving.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOut } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, errorOf, ok, startInProcess, textOf, type InProcess } from '../reliability/in-process.js';

const UNKNOWN_ID = '20261129-111500-7gk2mq4xrz9d';
const notAJobId = (arg: string, value: string): string =>
  `${arg} "${value.slice(0, 80)}" is not a job id; expected the form 20261129-111500-7gk2mq4xrz9d, a prefix of it or of its last part, or last`;

/** Rejected by the tool's input schema (the SDK's wording): the message names the tool and the argument. */
interface SchemaCase {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The argument the message must end with ` at <argument>`. */
  readonly at: string;
}

const SCHEMA_CASES: readonly SchemaCase[] = [
  { tool: 'run_agent', args: {}, at: 'task' },
  { tool: 'run_agent', args: { task: '' }, at: 'task' },
  { tool: 'run_agent', args: { task: 42 }, at: 'task' },
  { tool: 'run_agent', args: { task: 'x'.repeat(5 * 1024 * 1024) }, at: 'task' },
  { tool: 'run_agent', args: { task: 'x', model: '' }, at: 'model' },
  { tool: 'run_agent', args: { task: 'x', endpoint: 7 }, at: 'endpoint' },
  { tool: 'run_agent', args: { task: 'x', cwd: '' }, at: 'cwd' },
  { tool: 'run_agent', args: { task: 'x', isolation: 'copy' }, at: 'isolation' },
  { tool: 'run_agent', args: { task: 'x', wait_s: -1 }, at: 'wait_s' },
  { tool: 'run_agent', args: { task: 'x', wait_s: '5' }, at: 'wait_s' },
  { tool: 'run_agent', args: { task: 'x', permission_mode: 'root' }, at: 'permission_mode' },
  { tool: 'run_agent', args: { task: 'x', max_turns: 0 }, at: 'max_turns' },
  { tool: 'run_agent', args: { task: 'x', max_turns: 2.5 }, at: 'max_turns' },
  { tool: 'run_agent', args: { task: 'x', allowed_tools: 'Read' }, at: 'allowed_tools' },
  { tool: 'run_agent', args: { task: 'x', allowed_tools: ['Read', ''] }, at: 'allowed_tools[1]' },
  { tool: 'run_agent', args: { task: 'x', allowed_tools: Array.from({ length: 201 }, (_, i) => `T${i}`) }, at: 'allowed_tools' },
  { tool: 'run_agent', args: { task: 'x', system_prompt_append: 'y'.repeat(100_001) }, at: 'system_prompt_append' },
  { tool: 'run_agent', args: { task: 'x', resume_job: '' }, at: 'resume_job' },
  { tool: 'run_agent', args: { task: 'x', timeout_s: 0 }, at: 'timeout_s' },
  { tool: 'run_agent', args: { task: ' \n\t ' }, at: 'task' },
  { tool: 'run_agent', args: { task: 'x', cwd: 'src' }, at: 'cwd' },
  { tool: 'run_agent', args: { task: 'x', model: 'm'.repeat(900_000) }, at: 'model' },
  { tool: 'wait_job', args: { job_id: UNKNOWN_ID, timeout_s: -1 }, at: 'timeout_s' },
  { tool: 'jobs', args: { job_id: UNKNOWN_ID, tail_lines: 0 }, at: 'tail_lines' },
  { tool: 'wait_job', args: { job_id: '' }, at: 'job_id' },
  { tool: 'cancel_job', args: { job_id: null }, at: 'job_id' },
  { tool: 'jobs', args: { include_finished: 'yes' }, at: 'include_finished' },
  { tool: 'jobs', args: { limit: 0 }, at: 'limit' },
  { tool: 'cancel_job', args: { job_id: 12 }, at: 'job_id' },
  { tool: 'register_endpoint', args: { name: 'a b', base_url: 'http://x:1' }, at: 'name' },
  { tool: 'register_endpoint', args: { name: '../evil', base_url: 'http://x:1' }, at: 'name' },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'http://x:1', backend: 'tgi' }, at: 'backend' },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'http://x:1', max_jobs: 257 }, at: 'max_jobs' },
  { tool: 'register_model', args: { name: 'm', notes: 'n', context: 100 }, at: 'context' },
  { tool: 'local_complete', args: { prompt: '' }, at: 'prompt' },
  { tool: 'local_complete', args: { prompt: 'x', max_tokens: 0 }, at: 'max_tokens' },
  { tool: 'local_complete', args: { prompt: 'x', temperature: 3 }, at: 'temperature' },
];

/** Rejected by localagents itself: the exact error. */
interface OwnCase {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly code: string;
  readonly message: (h: InProcess) => string;
}

const PATHS = ['../x', 'a/b', '..', '/etc/passwd', `${UNKNOWN_ID}/../../../etc`, '..%2F..%2Fetc', 'C:\\Windows', `${UNKNOWN_ID}\u0000`];
const OWN_CASES: readonly OwnCase[] = [
  ...PATHS.flatMap((id): OwnCase[] => [
    { tool: 'jobs', args: { job_id: id }, code: 'bad_argument', message: () => notAJobId('job_id', id) },
    { tool: 'wait_job', args: { job_id: id }, code: 'bad_argument', message: () => notAJobId('job_id', id) },
    { tool: 'jobs', args: { job_id: id }, code: 'bad_argument', message: () => notAJobId('job_id', id) },
    { tool: 'cancel_job', args: { job_id: id }, code: 'bad_argument', message: () => notAJobId('job_id', id) },
    { tool: 'run_agent', args: { task: 'x', resume_job: id }, code: 'bad_argument', message: () => notAJobId('resume_job', id) },
  ]),
  { tool: 'jobs', args: { job_id: UNKNOWN_ID }, code: 'unknown_job', message: (h) => `no job ${UNKNOWN_ID} in ${join(h.dirs.state, 'jobs')}` },
  { tool: 'run_agent', args: { task: 'x', resume_job: UNKNOWN_ID }, code: 'unknown_job', message: (h) => `no job ${UNKNOWN_ID} in ${join(h.dirs.state, 'jobs')}` },
  { tool: 'run_agent', args: { task: 'x', endpoint: 'nope' }, code: 'bad_argument', message: () => 'unknown endpoint "nope"; configured endpoints: gpu' },
  { tool: 'run_agent', args: { task: 'x', cwd: '/no/such/dir' }, code: 'bad_argument', message: () => 'cwd "/no/such/dir" does not exist' },
  { tool: 'run_agent', args: { task: 'x', cwd: '/etc/hostname' }, code: 'bad_argument', message: () => 'cwd "/etc/hostname" is not a directory' },
  { tool: 'run_agent', args: { task: 'x', cwd: '/tmp\u0000/x' }, code: 'bad_argument', message: () => 'cwd "/tmp\u0000/x" does not exist' },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'ftp://x' }, code: 'bad_argument', message: () => 'endpoints.a.base_url: "ftp://x" uses ftp; expected an http:// or https:// URL' },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'file:///etc/passwd' }, code: 'bad_argument', message: () => 'endpoints.a.base_url: "file:///etc/passwd" uses file; expected an http:// or https:// URL' },
  {
    tool: 'register_endpoint',
    args: { name: 'a', base_url: 'http://gpu:8080/v1' },
    code: 'bad_argument',
    message: () => 'endpoints.a.base_url: "http://gpu:8080/v1" has a path (/v1); give the server root, e.g. http://gpu:8080 — localagents adds /v1/messages itself',
  },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'gpu:8080' }, code: 'bad_argument', message: () => 'endpoints.a.base_url: "gpu:8080" has no http:// or https:// in front; did you mean http://gpu:8080?' },
  { tool: 'register_endpoint', args: { name: 'a', base_url: 'http://x:1', api_key_env: 'MY-KEY' }, code: 'bad_argument', message: (h) => `api_key_env MY-KEY is refused: ${h.dirs.config} does not use MY-KEY` },
  {
    tool: 'register_endpoint',
    args: { name: 'a', base_url: 'http://admin:hunter2@gpu:8080' },
    code: 'bad_argument',
    message: () => 'endpoints.a.base_url: has a user name or password in it; put the key in api_key_env instead, so it never shows in listings or logs',
  },
  // Checked before anything is written: a dangling endpoint in the sidecar would break every later call.
  { tool: 'register_model', args: { name: 'm', notes: 'n', endpoint: 'nope' }, code: 'bad_argument', message: () => 'unknown endpoint "nope"; configured endpoints: gpu' },
];

describe('bad tool arguments', () => {
  let sim: Simulator;
  let h: InProcess;
  let yaml: string;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    yaml = endpointYaml(sim.url);
    h = await startInProcess({ yaml });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  for (const c of SCHEMA_CASES) {
    const shown = JSON.stringify(c.args).slice(0, 60);
    it(`${c.tool} ${shown}: refused by the input schema, naming ${c.at}`, async () => {
      const text = textOf(await h.call(c.tool, c.args));
      expect(text.startsWith(`MCP error -32602: Input validation error: Invalid arguments for tool ${c.tool}: `)).toBe(true);
      expect(text.endsWith(` at ${c.at}`)).toBe(true);
    });
  }

  for (const c of OWN_CASES) {
    it(`${c.tool} ${JSON.stringify(c.args).slice(0, 70)}: ${c.code}`, async () => {
      expect(errorOf(await h.call(c.tool, c.args))).toMatchObject({ code: c.code, message: c.message(h) });
    });
  }

  it('after all of that: no job was created, nothing the user wrote changed, and a job with a hostile but valid brief runs', async () => {
    expect(existsSync(join(h.dirs.state, 'jobs')) ? readdirSync(join(h.dirs.state, 'jobs')) : []).toEqual([]);
    expect(readFileSync(h.dirs.config, 'utf8')).toBe(yaml);
    expect(existsSync(join(h.dirs.root, 'models.local.yaml'))).toBe(false);
    expect(gitOut(h.dirs.repo, 'status', '--porcelain')).toBe('');

    // Lone surrogates, NUL, ANSI escapes and bidi overrides: text a caller might paste, not bytes we can trust.
    const brief = 'Say done. \ud800 \udfff \u0000 \u001b[31mred\u001b[0m \u202eevil\u202c caf\u00e9';
    sim.setScript([{ text: 'done' }]);
    const record = ok(await h.call('run_agent', { task: brief, wait_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'done' });
    const task = readFileSync(join(h.dirs.state, 'jobs', String(record.id), 'task.txt'), 'utf8');
    expect(task).toBe(brief.replace(/[\ud800-\udfff]/g, '\ufffd'));
    const sent = sim.requests.filter((r) => r.path === '/v1/messages').at(-1)!.bodyText;
    expect(sent).toContain('\\u001b[31mred\\u001b[0m \u202eevil\u202c caf\u00e9');
  });
});
