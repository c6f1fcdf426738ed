/**
 * The built localagents over stdio (official MCP Client) pointed at real llama-servers: a models.yaml naming them,
 * jobs started and awaited as the calling Claude would, and each job's requests.jsonl.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINISHED, type JobStatus } from '../../src/jobs/record/job-record.js';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';

export interface RequestLine {
  path: string;
  status: number;
  stream?: boolean;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; stop_reason?: string; error?: { type: string; message: string } };
  folded_system_messages?: number;
  original_error?: string;
  rewrites?: string[];
  error?: string;
}

export interface JobView {
  id: string;
  status: JobStatus;
  result?: string;
  error?: string;
  queue?: unknown;
  model: { served?: string; endpoint?: string };
  worktree?: { path: string };
}

export interface Localagents {
  readonly dirs: E2EDirs;
  readonly mcp: Connected;
  /** Starts a job and returns its record at once (wait_s 0). */
  start(args: Record<string, unknown>): Promise<JobView>;
  /** Polls wait_job until the job has finished. */
  finish(id: string, timeoutS?: number): Promise<JobView>;
  requests(id: string): RequestLine[];
  record(id: string): Record<string, unknown>;
  close(): Promise<void>;
}


/** A models.yaml endpoint: its URL, the variable holding its key, and its `env` for the jobs' Claude Code. */
export interface EndpointSpec {
  readonly url: string;
  readonly apiKeyEnv?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * `unsandboxed`: models.yaml turns the sandbox off. Claude Code's sandbox section makes the first request a few
 * thousand tokens longer; the test that needs Claude Code to send a prompt just over a small window uses it.
 */
export async function startLocalagents(endpoints: Record<string, EndpointSpec>, env: Record<string, string> = {}, options: { readonly unsandboxed?: boolean } = {}): Promise<Localagents> {
  const dirs = makeDirs();
  const yaml = ['endpoints:'];
  for (const [name, e] of Object.entries(endpoints)) {
    yaml.push(`  ${name}:`, `    base_url: ${e.url}`);
    if (e.apiKeyEnv !== undefined) yaml.push(`    api_key_env: ${e.apiKeyEnv}`);
    if (e.env !== undefined) yaml.push('    env:', ...Object.entries(e.env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`));
  }
  if (options.unsandboxed === true) yaml.push('defaults:', '  sandbox:', '    enabled: false');
  writeConfig(dirs, `${yaml.join('\n')}\n`);
  const mcp = await connect(dirs, env);
  const jobDir = (id: string): string => join(dirs.state, 'jobs', id);
  return {
    dirs,
    mcp,
    start: async (args) => ok(await mcp.call('run_agent', { wait_s: 0, ...args })) as unknown as JobView,
    async finish(id, timeoutS = 900) {
      const deadline = Date.now() + timeoutS * 1000;
      for (;;) {
        const record = ok(await mcp.call('wait_job', { job_id: id, timeout_s: 100 })) as unknown as JobView;
        if (FINISHED.has(record.status)) return record;
        if (Date.now() > deadline) throw new Error(`job ${id} still ${record.status} after ${timeoutS} s`);
      }
    },
    requests: (id) =>
      readFileSync(join(jobDir(id), 'requests.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as RequestLine),
    record: (id) => JSON.parse(readFileSync(join(jobDir(id), 'job.json'), 'utf8')) as Record<string, unknown>,
    close: () => mcp.close(),
  };
}

/** Share of a request's prompt the server took from its cache (llama.cpp's Anthropic usage). */
export function cacheShare(line: RequestLine | undefined): number {
  const cached = line?.usage?.cache_read_input_tokens ?? 0;
  const evaluated = line?.usage?.input_tokens ?? 0;
  return cached + evaluated === 0 ? 0 : cached / (cached + evaluated);
}
