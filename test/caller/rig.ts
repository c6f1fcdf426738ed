/**
 * The caller-side rig: the REAL Claude Code (the binary bundled with the Agent SDK) as the CALLER of localagents,
 * in print mode, with its own model scripted through one simulator and the delegated jobs' model through another.
 *
 *   const rig = await startCallerRig({ jobScript: [{ text: 'done', delayMs: 5000 }] });
 *   const run = await rig.runCaller('Delegate it.', (req) =>
 *     callerCalls(req) === 0 ? { text: 'Delegating.', toolUse: { name: la('run_agent'), input: { task: 'x' } } } : { text: 'Done.' });
 *   run.turns; run.toolCalls; run.resentBytes; run.transcriptPath; run.result;
 *   await rig.close();
 *
 * - `startCallerRig(options)`: a throwaway git repository (the caller's project, `rig.dirs.repo`), a job simulator
 *   (`rig.jobSim`, llama.cpp flavour, `jobSlots` slots, `jobScript`), a caller simulator (`rig.callerSim`), a
 *   models.yaml naming the job simulator, and an MCP config that starts the built server (`dist/main.cjs --config`,
 *   or `serverBin`). Run `npm run build` first. Claude Code gets a temporary HOME and CLAUDE_CONFIG_DIR, `--strict-mcp-config`.
 * - `rig.runCaller(prompt, script, options?)`: runs `claude -p` once; `script` answers the caller's requests (a
 *   simulator `Script`; tool names are `la('run_agent')` …). Every caller turn reports the `usage` in `CALLER_USAGE`
 *   (known figures). Resolves when Claude Code exits, with:
 *   - `turns`: the caller's model requests (the main loop's: those offering our tools), `requests` their records;
 *   - `toolCalls`: every tool call the caller's model made, in order (name without the `mcp__localagents__` prefix);
 *   - `resentBytes`: body bytes of every turn after the first (each re-sends the whole conversation);
 *   - `surfaceBytes`: bytes of our tools (name, description, input_schema) as Claude Code forwarded them to the API;
 *   - `transcriptPath`: `$CLAUDE_CONFIG_DIR/projects/<path>/<session>.jsonl`; `result`, `code`, `stderr`.
 * - `callerCalls(req)`: how many tool calls of ours the caller's model already made in this conversation;
 *   `toolResultTexts(req)`: the texts of every tool result it has been given, oldest first.
 * - `rig.jobRecords()`: every job record on file (state dir `rig.dirs.state`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { claudeEnv, runClaude } from '../e2e/claude-cli.js';
import { BIN, makeDirs, type E2EDirs } from '../e2e/harness.js';
import { startSimulator, type ParsedRequest, type RecordedRequest, type Script, type Simulator, type Turn } from '../sim/index.js';

export const SERVER_NAME = 'localagents';
const PREFIX = `mcp__${SERVER_NAME}__`;
/** The caller's name for one of our tools. */
export const la = (tool: string): string => `${PREFIX}${tool}`;

/** What every scripted caller turn reports as its usage: known figures a test can add up. */
export const CALLER_USAGE = { input_tokens: 1000, cache_read_input_tokens: 20_000, output_tokens: 50 } as const;

export interface CallerRigOptions {
  /** The delegated jobs' model (the job simulator's script). */
  readonly jobScript?: Script;
  readonly jobSlots?: number;
  /** Extra env for the caller's Claude Code (e.g. MCP_TOOL_TIMEOUT). */
  readonly callerEnv?: Record<string, string>;
  /** The localagents to attach: this checkout's dist/main.cjs, or another build's (bench part 10's "before"). */
  readonly serverBin?: string;
}

export interface CallerRun {
  readonly code: number | null;
  readonly stderr: string;
  /** The final `result` text of --output-format json. */
  readonly result: string | undefined;
  readonly turns: number;
  readonly requests: readonly RecordedRequest[];
  readonly toolCalls: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
  readonly resentBytes: number;
  readonly surfaceBytes: number;
  readonly transcriptPath: string | undefined;
}

export interface CallerRig {
  readonly dirs: E2EDirs;
  readonly jobSim: Simulator;
  readonly callerSim: Simulator;
  runCaller(prompt: string, script: Script, options?: { readonly timeoutMs?: number }): Promise<CallerRun>;
  jobRecords(): JobRecord[];
  close(): Promise<void>;
}

type Block = Record<string, unknown>;

function blocks(req: ParsedRequest, role: string, type: string): Block[] {
  return req.messages
    .filter((m) => m['role'] === role && Array.isArray(m['content']))
    .flatMap((m) => (m['content'] as Block[]).filter((b) => b['type'] === type));
}

export function callerCalls(req: ParsedRequest): number {
  return blocks(req, 'assistant', 'tool_use').filter((b) => String(b['name']).startsWith(PREFIX)).length;
}

export function toolResultTexts(req: ParsedRequest): string[] {
  return blocks(req, 'user', 'tool_result').map((b) => {
    const content = b['content'];
    if (typeof content === 'string') return content;
    return Array.isArray(content) ? (content as Block[]).map((c) => (typeof c['text'] === 'string' ? c['text'] : '')).join('\n') : '';
  });
}

/** A main-loop request: one that offers the model our tools (side requests such as titles offer none). */
function ourTools(r: RecordedRequest): Block[] {
  const body = r.json as { tools?: Block[] } | undefined;
  return (body?.tools ?? []).filter((t) => String(t['name']).startsWith(PREFIX));
}

function summarise(requests: readonly RecordedRequest[]): Pick<CallerRun, 'turns' | 'toolCalls' | 'resentBytes' | 'surfaceBytes'> {
  const last = requests.at(-1)?.json as { messages?: Block[] } | undefined;
  const toolCalls = (last?.messages ?? [])
    .filter((m) => m['role'] === 'assistant' && Array.isArray(m['content']))
    .flatMap((m) => (m['content'] as Block[]).filter((b) => b['type'] === 'tool_use'))
    .map((b) => ({ name: String(b['name']).replace(PREFIX, ''), input: b['input'] as Record<string, unknown> }));
  const first = requests[0];
  const surface = first === undefined ? [] : ourTools(first).map((t) => ({ name: t['name'], description: t['description'], input_schema: t['input_schema'] }));
  return {
    turns: requests.length,
    toolCalls,
    resentBytes: requests.slice(1).reduce((n, r) => n + Buffer.byteLength(r.bodyText, 'utf8'), 0),
    surfaceBytes: Buffer.byteLength(JSON.stringify(surface), 'utf8'),
  };
}

function findTranscript(configDir: string, session: string | undefined): string | undefined {
  const projects = join(configDir, 'projects');
  if (session === undefined || !existsSync(projects)) return undefined;
  return readdirSync(projects).map((p) => join(projects, p, `${session}.jsonl`)).find((f) => existsSync(f));
}

export async function startCallerRig(options: CallerRigOptions = {}): Promise<CallerRig> {
  const dirs = makeDirs();
  const jobSim = await startSimulator({ flavor: 'llama.cpp', slots: options.jobSlots ?? 2, script: options.jobScript ?? [{ text: 'done' }] });
  const callerSim = await startSimulator({ flavor: 'llama.cpp', modelId: 'caller-model' });
  // The sandbox needs bubblewrap, which a test machine may lack; what is measured here is the caller's side.
  writeFileSync(dirs.config, `defaults:\n  sandbox:\n    enabled: false\nendpoints:\n  gpu:\n    base_url: ${jobSim.url}\n    host: gpu-box\nmodels:\n  qwen3.8-27b:\n    notes: default mid-size coder\n`);
  const home = join(dirs.root, 'caller-home');
  mkdirSync(home, { recursive: true });
  const mcpConfig = join(dirs.root, 'mcp.json');
  const serverEnv = { LOCALAGENTS_STATE_DIR: dirs.state, LOCALAGENTS_LOG: 'warn' };
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER_NAME]: { command: process.execPath, args: [options.serverBin ?? BIN, '--config', dirs.config], env: serverEnv } } }));
  const env = claudeEnv(callerSim.url, home, join(home, '.claude'), callerSim.modelId, {
    // The scripted model calls our tools on its first turn: they must be listed then, not behind ToolSearch.
    MCP_CONNECTION_NONBLOCKING: 'false',
    ENABLE_TOOL_SEARCH: 'false',
    MCP_TIMEOUT: '60000',
    ...options.callerEnv,
  });

  return {
    dirs,
    jobSim,
    callerSim,
    async runCaller(prompt, script, runOptions = {}) {
      const seen = callerSim.requests.length;
      callerSim.setScript(async (req, ctx) => {
        const turn: Turn = typeof script === 'function' ? await script(req, ctx) : (script[req.assistantTurns] ?? { text: 'done' });
        return { usage: CALLER_USAGE, ...turn };
      });
      const args = ['-p', prompt, '--output-format', 'json', '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', `${PREFIX}*`];
      const out = await runClaude(args, dirs.repo, env, runOptions.timeoutMs ?? 600_000);
      const parsed = out.result ?? {}; // no JSON: the run failed; stderr says why
      const requests = callerSim.requests.slice(seen).filter((r) => r.path === '/v1/messages' && ourTools(r).length > 0);
      return { code: out.code, stderr: out.stderr, result: parsed.result, requests, transcriptPath: findTranscript(env.CLAUDE_CONFIG_DIR!, parsed.session_id), ...summarise(requests) };
    },
    jobRecords() {
      const jobs = join(dirs.state, 'jobs');
      if (!existsSync(jobs)) return [];
      return readdirSync(jobs).sort().flatMap((id) => {
        const file = join(jobs, id, 'job.json');
        return existsSync(file) ? [JSON.parse(readFileSync(file, 'utf8')) as JobRecord] : [];
      });
    },
    async close() {
      await callerSim.close();
      await jobSim.close();
    },
  };
}
