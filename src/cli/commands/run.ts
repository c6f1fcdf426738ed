/**
 * `localagents run TASK`: starts a job exactly as run_agent does (same service,
 * same record) and shows it until it ends. This process hosts the job — the
 * shim and the Claude Code session live in it — so it stays until the job ends;
 * "detach" only stops the display. SIGTERM (what `localagents cancel` sends)
 * cancels the job; the exit code is 0 only for a succeeded job.
 */
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { Option, type Command } from 'commander';
import type { App } from '../../app.js';
import { BadArgumentError, errorMessage } from '../../errors.js';
import { FINISHED, ISOLATIONS, type Isolation, type JobRecord } from '../../jobs/record/job-record.js';
import { createLogger } from '../../log.js';

import type { CliContext, GlobalOptions } from '../context.js';
import { jobJson, jobReport } from '../format-job.js';
import { choiceOf, detachedText, interruptQuestion } from '../follow/interrupt.js';
import { plainDisplay, quietDisplay, ttyDisplay, type RunDisplay } from '../follow/run-display.js';
import { print, printJson, printNote, processTerminal, type Terminal } from '../output.js';
import { withApp } from '../with-app.js';
import { refuseInsideJob } from '../../jobs/claude/nested-job.js';
import { SANDBOX_REQUESTS, type SandboxRequest } from '../../jobs/sandbox/policy.js';

interface RunOptions {
  agent?: string;
  model?: string;
  endpoint?: string;
  cwd?: string;
  isolation?: Isolation;
  follow?: boolean;
  json?: boolean;
  maxTurns?: string;
  timeout?: string;
  sandbox?: SandboxRequest;
  verify?: string;
  verifyAttempts?: string;
}

type Mode = 'tty' | 'plain' | 'quiet' | 'json';

function positive(value: string | undefined, argument: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new BadArgumentError(argument, `${argument} must be a positive ${integer ? 'whole ' : ''}number, not "${value}"`);
  }
  return n;
}

async function untilFinished(app: App, id: string): Promise<JobRecord> {
  for (;;) {
    const record = await app.jobs.wait(id, 3600);
    if (FINISHED.has(record.status)) return record;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function follow(app: App, started: JobRecord, mode: Mode, term: Terminal, display: RunDisplay): Promise<{ record: JobRecord; detached: boolean }> {
  const id = started.id;
  let phase: 'following' | 'asking' | 'detached' | 'stopping' = 'following';
  // Signal handlers change the phase between awaits; read it through a call so TypeScript does not pin it.
  const now = (): typeof phase => phase;
  let ended = false;
  const finished = untilFinished(app, id).finally(() => {
    ended = true;
  });
  const questions = new AbortController();

  const cancel = (why: string): void => {
    if (phase === 'stopping') return;
    phase = 'stopping';
    if (why) display.note(why);
    app.jobs.cancel(id).catch((err: unknown) => display.note(`could not cancel: ${errorMessage(err)}`));
  };
  const ask = async (): Promise<void> => {
    phase = 'asking';
    display.pause();
    term.write(interruptQuestion(id, process.pid));
    const key = await term.readKey(questions.signal);
    term.write('\n');
    if (ended) return;
    const choice = choiceOf(key);
    if (choice === 'cancel') {
      phase = 'following';
      cancel(`cancelling job ${id}…`);
    } else if (choice === 'detach') {
      phase = 'detached';
      term.write(`${detachedText(id, process.pid)}\n`);
    } else phase = 'following';
  };
  const onSigint = (): void => {
    if (phase === 'stopping') display.note('still stopping the job…');
    else if (phase === 'following' && term.interactive && mode !== 'json') void ask();
    else if (phase !== 'asking') cancel(`cancelling job ${id} (Ctrl-C)…`);
  };
  const onSigterm = (): void => cancel(`cancelling job ${id} (SIGTERM)…`);
  const onSighup = (): void => cancel('');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSighup);
  try {
    const watch = mode === 'tty' || mode === 'plain' ? app.followJob(id) : undefined;
    const interval = mode === 'tty' ? 250 : 500;
    while (!ended) {
      // Polls pause while a question is open and stop once detached; the tail keeps its place.
      if (watch && (now() === 'following' || now() === 'stopping')) display.update(await watch.poll());
      await Promise.race([finished, sleep(interval)]);
    }
    const record = await finished;
    questions.abort();
    if (watch && now() !== 'detached') {
      const last = await watch.poll();
      const rest = watch.rest();
      display.update({ ...last, lines: rest ? [...last.lines, rest] : last.lines });
    }
    display.pause();
    return { record, detached: now() === 'detached' };
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSighup);
  }
}

async function runJob(ctx: CliContext, configPath: string | undefined, taskArg: string, opts: RunOptions): Promise<void> {
  refuseInsideJob(ctx.env, '`localagents run`');
  const term = processTerminal();
  const task = taskArg === '-' ? await text(process.stdin) : taskArg;
  if (task.trim() === '') {
    throw new BadArgumentError('TASK', 'the task is empty', { hint: 'Pass the brief as one quoted argument, or - to read it from stdin.' });
  }
  const maxTurns = positive(opts.maxTurns, '--max-turns', true);
  const timeoutS = positive(opts.timeout, '--timeout', false);
  const verifyAttempts = positive(opts.verifyAttempts, '--verify-attempts', true);
  const mode: Mode = opts.json ? 'json' : (opts.follow ?? term.isTty) ? (term.isTty ? 'tty' : 'plain') : 'quiet';
  let display: RunDisplay = mode === 'json' ? quietDisplay(printNote) : quietDisplay(print);
  if (mode === 'tty') display = ttyDisplay(term);
  if (mode === 'plain') display = plainDisplay(term);
  // On a terminal, our own warnings go above the status area instead of through it.
  const log = mode === 'tty' ? createLogger(undefined, (line) => display.note(line.trimEnd())) : ctx.log;

  await withApp(ctx, configPath, async (app) => {
    const started = await app.jobs.start({
      task,
      agent: opts.agent,
      model: opts.model,
      endpoint: opts.endpoint,
      cwd: opts.cwd === undefined ? undefined : resolve(ctx.cwd, opts.cwd),
      isolation: opts.isolation,
      maxTurns,
      timeoutS,
      sandbox: opts.sandbox,
      verify: opts.verify,
      verifyAttempts,
    });
    const startLine = `job ${started.id} started (${started.status}); transcript: ${app.jobPaths(started.id).transcript}`;
    if (mode === 'json') printNote(startLine);
    else display.note(mode === 'quiet' ? `${startLine}\nlocalagents log ${started.id} -f follows it from another shell` : startLine);
    const { record, detached } = await follow(app, started, mode, term, display);
    if (mode === 'json') printJson(jobJson(record));
    else if (!detached) print(jobReport(record));
    ctx.exitCode = record.status === 'succeeded' ? 0 : 1;
  }, log);
}

export function registerRun(program: Command, ctx: CliContext): void {
  program
    .command('run')
    .description('start a delegated Claude Code job on a local model (as a delegation from Claude Code does) and show it until it ends')
    .argument('<task>', 'the brief: goal, files, how to verify; - reads it from stdin')
    .option('--agent <name>', 'run as this Claude Code agent definition (.claude/agents/<name>.md, ~/.claude/agents or models.yaml agents:); the task is its input')
    .option('--model <name>', 'served id, glob, fuzzy name or models.yaml menu name (default: defaults.model, else the first live endpoint)')
    .option('--endpoint <name>', 'pin the job to this endpoint')
    .option('--cwd <dir>', 'working directory of the job (default: the current directory)')
    .addOption(new Option('--isolation <kind>', 'none: work in --cwd; worktree: a fresh git worktree on branch local-agent/<job>, kept if anything changed').choices(ISOLATIONS))
    .addOption(new Option('--sandbox <level>', 'strict: sandboxed with none of models.yaml\'s escape hatches, even where it turned the sandbox off (loosening is models.yaml\'s defaults.sandbox, never an option)').choices(SANDBOX_REQUESTS))
    .option('--verify <command>', 'a shell command (run in the job\'s tree, sandboxed like its Bash) that must exit 0 before the job may end; its failures go back to the model')
    .option('--verify-attempts <n>', 'how many times the check may run (default 3, at most defaults.max_verify_attempts)')
    .option('--max-turns <n>', 'stop after this many model turns')
    .option('--timeout <seconds>', 'stop the job after this long (default from models.yaml, 1800)')
    .option('--follow', 'show progress while the job runs (default when stdout is a terminal)')
    .option('--no-follow', 'print the job id, wait silently, then print the result')
    .option('--json', 'print only the final job record as JSON (progress notes go to stderr)')
    .addHelpText('after', `
The job runs inside this process: the process exits when the job ends, with
code 0 if it succeeded and 1 otherwise (2 for a bad argument).
On a terminal, Ctrl-C asks: c cancels the job; d detaches, which stops the
display but keeps this process (and the job) running until the job ends —
use Ctrl-Z then bg to get your shell back. Elsewhere Ctrl-C and SIGTERM
cancel the job. When stdout is not a terminal, --follow prints one line per
event instead of redrawing.

Examples:
  localagents run "Add a --verbose flag to src/cli.ts; run npm test; report what changed"
  localagents run --isolation worktree --model qwen3.8-27b "Write tests for src/parse.ts"
  localagents run - --no-follow < brief.md
  localagents run --agent test-writer "Cover src/parse.ts"
  localagents run --verify "npm test" "Add a --json flag to src/cli.ts and a test for it"
  localagents run --json "Fix the failing test in test/a.test.ts" | jq .status`)
    .action((task: string, opts: RunOptions) => runJob(ctx, program.opts<GlobalOptions>().config, task, opts));
}
