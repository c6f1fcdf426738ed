/**
 * Part 10's interactive case: the real Claude Code in a pseudo-terminal (test/caller/pty.ts) starts localagents as
 * the plugin does (plugin/start-mcp.mjs over stdio), its model scripted to delegate once and to answer whatever
 * comes next; the job is paced by the simulator. Counted until the caller is woken by the result: the caller's
 * main-loop model requests, those spent on wait_job, the bytes re-sent, and whether the call came
 * back as a background task at once.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, REPO_ROOT, serverEnv, writeConfig } from '../../test/e2e/harness.js';
import { startPtyClaude } from '../../test/caller/pty.js';
import { until } from '../../test/helpers/processes.js';
import { startSimulator, type ParsedRequest, type RecordedRequest, type Turn } from '../../test/sim/index.js';

const RUN = 'mcp__localagents__run_agent';
const WOKEN = 'background-task event';

export interface InteractiveRun {
  readonly turns: number;
  readonly polls: number;
  readonly resentBytes: number;
  /** The caller read "moved to the background" in the answer to its run_agent call. */
  readonly taskAtOnce: boolean;
}

function lastUser(req: ParsedRequest): string {
  return JSON.stringify([...req.messages].reverse().find((m) => m.role === 'user') ?? {});
}

function callerTurn(req: ParsedRequest): Turn {
  const last = lastUser(req);
  if (last.includes(WOKEN)) return { text: 'The local agent finished.' };
  if (last.includes('tool_result')) return { text: 'Delegated; carrying on.' };
  return last.includes('DELEGATE') ? { toolUse: { name: RUN, input: { task: 'Run the steps.' } } } : { text: 'OK.' };
}

/** A main-loop request: it offers the model tools (side requests, such as a title, offer none). Interactive Claude Code defers MCP tools behind ToolSearch, so ours need not be among them. */
const mainLoop = (r: RecordedRequest): boolean => r.path === '/v1/messages' && ((r.json as { tools?: unknown[] } | undefined)?.tools ?? []).length > 0;

/** One delegation of a job that `jobScript` paces; resolves once the caller has been woken by its result. */
export async function interactiveDelegation(jobScript: Turn[], timeoutMs: number): Promise<InteractiveRun> {
  const dirs = makeDirs();
  const local = await startSimulator({ flavor: 'llama.cpp', slots: 1, script: jobScript });
  const caller = await startSimulator({ flavor: 'llama.cpp', modelId: 'caller-model', script: callerTurn });
  writeConfig(dirs, `defaults:\n  sandbox:\n    enabled: false\nendpoints:\n  gpu:\n    base_url: ${local.url}\n`);
  const home = join(dirs.root, 'caller-home');
  mkdirSync(home);
  const server = { command: process.execPath, args: [join(REPO_ROOT, 'plugin', 'start-mcp.mjs')], env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config }) };
  const claude = await startPtyClaude({ cwd: dirs.repo, home, configDir: join(home, '.claude'), baseUrl: caller.url, model: caller.modelId, mcpConfig: { localagents: server }, allowedTools: [RUN] });
  try {
    await claude.say('DELEGATE the steps please');
    const woken = (): boolean => caller.requests.some((r) => r.bodyText.includes(WOKEN));
    if (!(await until(woken, timeoutMs, 500))) throw new Error(`the interactive caller was not woken by the result:\n${await claude.screen()}`);
    const requests = caller.requests.filter(mainLoop);
    const last = requests.at(-1)?.bodyText ?? '';
    return {
      turns: requests.length,
      polls: (last.match(/"name":"mcp__localagents__wait_job"/g) ?? []).length,
      resentBytes: requests.slice(1).reduce((n, r) => n + Buffer.byteLength(r.bodyText, 'utf8'), 0),
      taskAtOnce: last.includes('moved to the background'),
    };
  } finally {
    await claude.close();
    await caller.close();
    await local.close();
  }
}
