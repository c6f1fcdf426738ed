/**
 * Part 3: job start. run_agent over MCP stdio to the built server → the
 * session's first /v1/messages at the simulator, against bare `claude -p` →
 * its first request, and against the Agent SDK's query() called directly
 * with a job's options (Claude Code in SDK mode, no localagents) — in turn,
 * same machine, same simulator. The simulator's request log (probe GETs
 * included) shows where localagents spends the time before Claude Code starts.
 * run_agent runs twice over: with Claude Code's sandbox (the default) and with
 * `defaults.sandbox.enabled: false`, each on its own server.
 */
import { join, resolve } from 'node:path';
import { DEFAULT_SYSTEM_PROMPT_APPEND } from '../../src/config/schema.js';
import { runClaudeSession } from '../../src/jobs/claude/claude-session.js';
import { buildSessionEnv } from '../../src/jobs/claude/session-env.js';
import { claudeEnv } from '../../test/e2e/claude-cli.js';
import { makeDirs, writeConfig, type E2EDirs } from '../../test/e2e/harness.js';
import { startSimulator, type RecordedRequest, type Simulator } from '../../test/sim/index.js';
import { spawnClaudeP } from '../lib/claude-run.js';
import type { Table, Target } from '../lib/report.js';
import { removeDirs, startServer, structured, type BenchServer } from '../lib/server.js';
import { formatSpread, rotate, spread } from '../lib/stats.js';

interface StartSample {
  /** call (or spawn) → first POST /v1/messages, ms. */
  readonly firstRequest: number;
  /** run_agent only: call → answer. */
  readonly answered?: number;
  /** run_agent only: call → first probe GET; → last GET before the first POST. */
  readonly firstGet?: number;
  readonly lastGet?: number;
  readonly gets?: number;
}

const isPost = (r: RecordedRequest): boolean => r.method === 'POST' && r.path.startsWith('/v1/messages');

async function firstPostAfter(sim: Simulator, since: number, timeoutMs = 60_000): Promise<RecordedRequest> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = sim.requests.find((r) => r.time >= since && isPost(r));
    if (found) return found;
    if (Date.now() > until) throw new Error('no /v1/messages request reached the simulator');
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function viaRunAgent(server: BenchServer, sim: Simulator): Promise<StartSample> {
  const t0 = Date.now();
  let answered = Number.NaN;
  const answer = server.call('run_agent', { task: 'Say done.', wait_s: 0 }).then((r) => {
    answered = Date.now() - t0;
    return r;
  });
  const post = await firstPostAfter(sim, t0);
  const record = structured(await answer);
  const gets = sim.requests.filter((r) => r.time >= t0 && r.time <= post.time && r.method === 'GET');
  const done = structured(await server.call('wait_job', { job_id: record.id, timeout_s: 100 }));
  if (done.status !== 'succeeded') throw new Error(`job ${String(record.id)} ended ${String(done.status)}: ${String(done.error)}`);
  return {
    firstRequest: post.time - t0,
    answered,
    firstGet: (gets[0]?.time ?? post.time) - t0,
    lastGet: (gets.at(-1)?.time ?? post.time) - t0,
    gets: gets.length,
  };
}

async function viaBareClaude(dirs: E2EDirs, sim: Simulator): Promise<StartSample> {
  const env = claudeEnv(sim.url, dirs.root, join(dirs.root, 'claude-bare'), sim.modelId);
  const t0 = Date.now();
  const child = spawnClaudeP('Say done.', dirs.repo, env);
  const post = await firstPostAfter(sim, t0);
  await child.exited;
  return { firstRequest: post.time - t0 };
}

/** What a job's session gets, minus localagents: same options, straight at the simulator. */
async function viaSdkQuery(dirs: E2EDirs, sim: Simulator): Promise<StartSample> {
  const env = buildSessionEnv({
    baseUrl: sim.url,
    servedModel: sim.modelId,
    context: 131072,
    endpointEnv: undefined,
    parentEnv: { PATH: process.env.PATH, HOME: dirs.root, CLAUDE_CONFIG_DIR: join(dirs.root, 'claude-sdk') },
  });
  const t0 = Date.now();
  const session = runClaudeSession({
    prompt: 'Say done.',
    cwd: dirs.repo,
    env,
    permissionMode: 'acceptEdits',
    allowedTools: ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash', 'TodoWrite', 'NotebookEdit'],
    disallowedTools: ['Agent', 'Task'],
    settingSources: ['user', 'project', 'local'],
    systemPromptAppend: DEFAULT_SYSTEM_PROMPT_APPEND,
    maxTurns: 200,
    resume: undefined,
    abortController: new AbortController(),
    onMessage: () => undefined,
    onStderr: () => undefined,
  });
  const post = await firstPostAfter(sim, t0);
  await session;
  return { firstRequest: post.time - t0 };
}

export interface StartRig {
  readonly dirs: E2EDirs;
  readonly sim: Simulator;
  readonly server: BenchServer;
  close(): Promise<void>;
}

export async function startJobRig(configExtra = '', serverFlags: readonly string[] = []): Promise<StartRig> {
  const dirs = makeDirs();
  const sim = await startSimulator({ flavor: 'llama.cpp', slots: 2, script: [{ text: 'done' }] });
  writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\nmodels:\n  qwen:\n    notes: bench\n${configExtra}`);
  const server = await startServer(dirs, serverFlags);
  return {
    dirs,
    sim,
    server,
    async close() {
      await server.close();
      await sim.close();
      removeDirs(dirs);
    },
  };
}

export async function measureJobStart(scale: number): Promise<{ tables: Table[]; targets: Target[]; notes: string[] }> {
  const n = Math.max(5, Math.round(10 * scale));
  const rig = await startJobRig('', process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve('scratch', 'bench-profiles')}`] : []);
  const unsandboxed = await startJobRig('defaults:\n  sandbox:\n    enabled: false\n');
  const agent: StartSample[] = [];
  const agentOff: StartSample[] = [];
  const bare: StartSample[] = [];
  const sdk: StartSample[] = [];
  const variants = [
    () => viaBareClaude(rig.dirs, rig.sim).then((s) => bare.push(s)),
    () => viaRunAgent(rig.server, rig.sim).then((s) => agent.push(s)),
    () => viaSdkQuery(rig.dirs, rig.sim).then((s) => sdk.push(s)),
    () => viaRunAgent(unsandboxed.server, unsandboxed.sim).then((s) => agentOff.push(s)),
  ];
  try {
    // One of each first, not counted: the first run of the 400 MB binary reads it from disk.
    await viaBareClaude(rig.dirs, rig.sim);
    await viaRunAgent(rig.server, rig.sim);
    await viaSdkQuery(rig.dirs, rig.sim);
    await viaRunAgent(unsandboxed.server, unsandboxed.sim);
    // Rotate which goes first so none always follows the same one's exit.
    for (let i = 0; i < n; i++) for (const run of rotate(variants, i)) await run();
  } finally {
    await rig.close();
    await unsandboxed.close();
  }
  const f = (xs: readonly number[]): string => formatSpread(spread(xs), 0);
  // Judged on the difference of medians: one slow Claude Code start (±300 ms on a busy 2-core box) moves a paired difference, not a median.
  const first = (xs: readonly StartSample[]): number => spread(xs.map((x) => x.firstRequest)).median;
  const added = first(agent) - first(bare);
  const paired = spread(agent.map((a, i) => a.firstRequest - (bare[i]?.firstRequest ?? Number.NaN)));
  const addedOverSdk = first(agent) - first(sdk);
  const sandboxCost = first(agent) - first(agentOff);
  const agentRow = (name: string, xs: readonly StartSample[]): string[] => [
    name,
    f(xs.map((a) => a.firstRequest)),
    f(xs.map((a) => a.answered ?? Number.NaN)),
    f(xs.map((a) => a.firstGet ?? Number.NaN)),
    f(xs.map((a) => a.lastGet ?? Number.NaN)),
    f(xs.map((a) => a.firstRequest - (a.lastGet ?? 0))),
    f(xs.map((a) => a.gets ?? Number.NaN)),
  ];
  return {
    tables: [
      {
        title: `call → first /v1/messages at the simulator, ms, ${n} runs each, in rotating order (median (min–max))`,
        columns: ['variant', 'first request', 'answer returned', 'first probe GET', 'last GET before spawn', 'last GET → first request', 'GETs'],
        rows: [
          ['bare claude -p', f(bare.map((b) => b.firstRequest)), '—', '—', '—', '—', '—'],
          ['Agent SDK query(), job options, no localagents', f(sdk.map((b) => b.firstRequest)), '—', '—', '—', '—', '—'],
          agentRow('run_agent (MCP stdio), sandboxed (default)', agent),
          agentRow('run_agent (MCP stdio), defaults.sandbox.enabled: false', agentOff),
        ],
      },
    ],
    targets: [
      {
        what: 'run_agent → first request, added over bare claude -p (difference of medians)',
        measured: `${added.toFixed(0)} ms (paired differences: ${formatSpread(paired, 0, ' ms')})`,
        target: '≤ +100 ms',
        met: added <= 100,
      },
      { what: 'run_agent → first request, added over the SDK query() alone (what localagents itself adds)', measured: `${addedOverSdk.toFixed(0)} ms`, target: 'report', met: undefined },
      { what: 'run_agent → first request, sandboxed minus unsandboxed (difference of medians)', measured: `${sandboxCost.toFixed(0)} ms`, target: 'report', met: undefined },
    ],
    notes: [
      'GETs are the probes (/props, /slots, /v1/models, /metrics) and the metrics snapshot localagents makes before spawning Claude Code; "last GET → first request" is spawn plus Claude Code start-up through the Agent SDK.',
    ],
  };
}
