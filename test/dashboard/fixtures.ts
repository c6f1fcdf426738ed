/**
 * Job records and request logs for dashboard tests, written through the real
 * job store in the shapes the job manager and the shim write, so the
 * dashboard reads exactly what a real job leaves behind.
 */
import { appendFile } from 'node:fs/promises';
import { newJobId } from '../../src/jobs/record/job-id.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import type { JobStore } from '../../src/jobs/record/job-store.js';
import type { RequestLogEntry } from '../../src/shim/request-log/request-log.js';

export function makeRecord(overrides: Partial<JobRecord> & { created?: Date } = {}): JobRecord {
  const { created = new Date(), ...rest } = overrides;
  const runMs = 9_000 * (overrides.num_turns ?? 12);
  const id = newJobId(created);
  return {
    id,
    status: 'succeeded',
    created_at: created.toISOString(),
    started_at: new Date(created.getTime() + 400).toISOString(),
    finished_at: new Date(created.getTime() + 400 + runMs).toISOString(),
    task_preview: 'Add a --json flag to `localagents models` and a test for it.',
    model: { requested: 'qwen3.8-27b', served: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL', endpoint: 'gpu', context: 131072, context_source: 'llama.cpp /props n_ctx (per slot)' },
    cwd: '/home/dev/project',
    work_dir: '/home/dev/project',
    isolation: 'none',
    permission_mode: 'acceptEdits',
    max_turns: 60,
    timeout_s: 1800,
    allowed_tools: [],
    disallowed_tools: [],
    num_turns: 12,
    tool_calls: 11,
    files_touched: ['/home/dev/project/src/cli/program.ts', '/home/dev/project/test/cli/models.test.ts'],
    usage: { input_tokens: 48_210, output_tokens: 6_120, cache_read_input_tokens: 512_400 },
    requests: 0,
    result: 'Added --json and a test; npm test passes.',
    warnings: [],
    owner_pid: process.pid,
    ...rest,
  };
}

export interface RequestSpec {
  readonly cached: number;
  readonly fresh: number;
  readonly output: number;
  readonly ttfbMs: number;
  readonly totalMs: number;
  readonly status?: number;
  readonly error?: string;
}

/** One requests.jsonl line exactly as the shim writes it (src/shim/forward.ts writeLog). */
export function requestEntry(at: Date, spec: RequestSpec, messages: number): RequestLogEntry {
  const failed = (spec.status ?? 200) >= 400;
  return {
    t: at.toISOString(),
    path: '/v1/messages',
    method: 'POST',
    model: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL',
    messages,
    tools: 24,
    stream: true,
    request_bytes: 40_000 + messages * 2_500,
    status: spec.status ?? 200,
    ttfb_ms: failed ? undefined : spec.ttfbMs,
    total_ms: spec.totalMs,
    usage: failed ? undefined : { input_tokens: spec.fresh, output_tokens: spec.output, cache_read_input_tokens: spec.cached, cache_creation_input_tokens: 0 },
    folded_system_messages: 1,
    rewrites: ['folded 1 system message into the next user message', 'stripped billing header'],
    error: spec.error,
  };
}

/** A count_tokens side request, which is logged but is not a generation request. */
export function countTokensEntry(at: Date): RequestLogEntry {
  return {
    t: at.toISOString(),
    path: '/v1/messages/count_tokens',
    method: 'POST',
    model: 'unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL',
    messages: 3,
    tools: 24,
    stream: false,
    request_bytes: 52_000,
    status: 200,
    ttfb_ms: 12.5,
    total_ms: 13.1,
    usage: undefined,
    folded_system_messages: 1,
    rewrites: [],
  };
}

/**
 * A session whose prompt grows by a few thousand tokens a turn with the KV
 * cache reused, loses the cache at `missAt` (the whole prompt re-evaluated),
 * and ends with one failed request when `failLast` is set.
 */
export function sessionRequests(count: number, options: { missAt?: number; failLast?: boolean } = {}): RequestSpec[] {
  const specs: RequestSpec[] = [];
  let held = 0; // what the backend's slot holds after a request: its prompt plus what it generated
  for (let i = 1; i <= count; i++) {
    const added = i === 1 ? 14_000 : 900 + ((i * 617) % 2_600);
    const miss = i === 1 || i === options.missAt;
    const cached = miss ? 0 : held;
    const fresh = miss ? held + added : added;
    const output = 80 + ((i * 389) % 900);
    const ttfbMs = 250 + fresh / 2.2;
    specs.push({ cached, fresh, output, ttfbMs, totalMs: ttfbMs + output * 24 });
    held = cached + fresh + output;
  }
  if (options.failLast) {
    specs.push({ cached: 0, fresh: 0, output: 0, ttfbMs: 0, totalMs: 38, status: 400, error: `prompt is too long: ${held + 3_000} tokens > 131072 maximum` });
  }
  return specs;
}

/** transcript.txt lines in the session observer's shapes. */
function transcript(record: JobRecord, turns: number): string {
  const start = Date.parse(record.started_at ?? record.created_at);
  const stamp = (i: number): string => new Date(start + i * 4_000).toISOString().slice(11, 19);
  const lines = [`${new Date(start).toISOString()} job ${record.id}: ${record.model.served ?? 'model'} on ${record.model.endpoint ?? 'gpu'} in ${record.cwd}`];
  const tools = ['Read src/cli/program.ts', 'Grep "models" src/cli', 'Edit src/cli/program.ts', 'Bash npx vitest run test/cli/models.test.ts', 'Write test/cli/models.test.ts'];
  for (let i = 1; i < turns; i++) {
    lines.push(`${stamp(i)} tool: ${tools[i % tools.length]}`, `${stamp(i)} result: ok`);
  }
  if (record.result) lines.push(`${stamp(turns)} done after ${turns} turns: ${record.result}`);
  if (record.error) lines.push(`${stamp(turns)} failed after ${turns} turns: ${record.error}`);
  return `${lines.join('\n')}\n`;
}

/** Creates the job folder and record, and writes its transcript and requests.jsonl (with a count_tokens call in between). */
export async function seedJob(store: JobStore, record: JobRecord, requests: readonly RequestSpec[] = []): Promise<JobRecord> {
  const saved = { ...record, requests: requests.length };
  const paths = await store.create(saved, `${record.task_preview}\n\nReport what you changed.`);
  await appendFile(paths.transcript, transcript(saved, Math.max(1, requests.length)));
  const start = Date.parse(record.started_at ?? record.created_at);
  const lines = requests.map((spec, i) => JSON.stringify(requestEntry(new Date(start + i * 4_000), spec, 1 + i * 2)));
  if (lines.length > 1) lines.splice(1, 0, JSON.stringify(countTokensEntry(new Date(start + 2_000))));
  if (lines.length > 0) await appendFile(paths.requests, `${lines.join('\n')}\n`);
  return saved;
}
