/**
 * Runs one placed job to its end: shim route, Claude Code session, transcript,
 * metrics delta, worktree finish, final record. Everything it opens is closed
 * in one `finally`, whatever throws, and the record says why the job ended.
 */
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { metricsDelta, snapshotMetrics, type MetricsSnapshot } from '../../backends/metrics-delta.js';
import type { Endpoint } from '../../config/schema.js';
import { deniedFrontDoors, httpFrontDoorPorts } from '../../coord/front-door-tokens.js';
import { privateAppendStream } from '../../coord/private-files.js';
import { processStartTime } from '../../coord/process-identity.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { createRequestLog, type RequestLog } from '../../shim/request-log/request-log.js';
import type { PerJobValue } from '../../shim/rewrite/per-job-values.js';
import type { OpenRoute, Shim } from '../../shim/routes.js';
import { findClaudeCode, NO_CLAUDE_CODE, type ClaudeCode } from '../claude/claude-binary.js';
import { routeFailover, toldWindow, type FailoverDeps } from './failover.js';
import { runClaudeSession } from '../claude/claude-session.js';
import { isHarmlessStderr } from '../claude/claude-stderr.js';
import { sessionAgent } from './agent-job.js';
import { finalStatus, outageAtEnd, type RunEnd, type StopReason } from './final-status.js';
import type { JobRecord } from '../record/job-record.js';
import type { JobPaths } from '../record/job-store.js';
import { JOB_ENV_MARKER } from '../claude/nested-job.js';
import { findOverrides, overrideWarning, pinnedEnv, pinnedSettings, settingsFiles, writeSettingsFile, type SettingsFile } from '../claude/pinned-settings.js';
import { createRunTracker, type RunTracker } from '../tracking/run-tracker.js';
import { sameModelRule } from '../placement/same-model.js';
import type { JobSettings } from './run-request.js';
import { buildSessionEnv, compactionWarning } from '../claude/session-env.js';
import { openJobSandbox, type JobSandbox } from '../sandbox/job-sandbox.js';
import { verificationLine } from '../verify/record.js';
import { createVerifier, type Verifier } from '../verify/verifier.js';
import { finishWorktree, type PreparedWorktree } from '../git/worktree.js';
import { leftTreeOf } from '../git/left-tree.js';

export interface RunDeps {
  readonly shim: Shim;
  readonly log: Logger;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly claudeExecutable?: string | undefined;
  /** The state directory: the sandbox hides it from the session (worktrees aside), and the HTTP front doors' token files in it name the ports sessions are denied. */
  readonly stateDir: string;
  /** Persists the record; never throws: a record the disk refuses is logged, kept and written again (record-saver.ts). */
  readonly save: (record: JobRecord) => Promise<void>;
  /** What a move to another endpoint needs (defaults.failover: same_model); absent: jobs never move. */
  readonly failover?: FailoverDeps | undefined;
}

export interface PlacedJob {
  record: JobRecord;
  readonly paths: JobPaths;
  readonly task: string;
  readonly settings: JobSettings;
  /** Where it runs: changed only when failover moves it (src/jobs/session/failover.ts). */
  endpoint: Endpoint;
  servedModel: string;
  context: number | undefined;
  vision: boolean;
  readonly worktree: PreparedWorktree | undefined;
  readonly workDir: string;
  readonly resumeSession: string | undefined;
  readonly abort: AbortController;
  stopReason: StopReason | undefined;
  /** Who asked for the cancel, when a caller said (e.g. the calling Claude's TaskStop). */
  cancelledBy: string | undefined;
}

/** Everything a run opens, so one `finally` can close what was opened so far. */
interface Opened {
  readonly transcript: WriteStream;
  readonly events: WriteStream;
  readonly requestLog: RequestLog;
  route?: OpenRoute;
  settingsFile?: SettingsFile;
  sandbox?: JobSandbox;
  verifier?: Verifier;
  timer?: NodeJS.Timeout;
  metricsBefore?: Promise<MetricsSnapshot | undefined>;
}

function openStream(path: string, log: Logger): WriteStream {
  const stream = privateAppendStream(path);
  stream.on('error', (err) => log.warn('cannot write %s: %s', path, err.message));
  return stream;
}

async function closeStream(stream: WriteStream): Promise<void> {
  if (stream.destroyed) return;
  stream.end();
  await once(stream, 'close').catch(() => undefined);
}

function noteUnwritable(job: PlacedJob, log: Logger): void {
  if (job.paths.unwritable === undefined) return;
  const warning = `${job.paths.unwritable}; the job runs, but its record, transcript and logs are not on disk, so only this server process can report it (the record is written again every 2 s and at shutdown) — free disk space or make the state directory writable (LOCALAGENTS_STATE_DIR / XDG_STATE_HOME)`;
  job.record = { ...job.record, warnings: [...job.record.warnings, warning] };
  log.error('job %s: %s', job.record.id, warning);
}

type SessionOutcome = Pick<RunEnd, 'sessionError' | 'lastStderr' | 'sandboxProblem'>;

/** The job's verify command, when it has one: checks at each stop, each one in the record and the transcript. */
function openVerifier(job: PlacedJob, run: RunTracker, sessionEnv: Record<string, string>, sandbox: JobSandbox): Verifier | undefined {
  const plan = job.settings.verify;
  if (plan === undefined) return undefined;
  const verifier = createVerifier({
    plan,
    workDir: job.workDir,
    sessionEnv,
    sandbox: 'sandbox' in sandbox.settings ? sandbox.settings.sandbox : undefined,
    signal: job.abort.signal,
    current: () => job.record,
    onAttempt: (verification, attempt) => {
      run.update({ verification });
      run.line(`${attempt.started_at} check ${verification.attempts.length} of ${plan.attempts}: exit ${attempt.exit_code ?? (attempt.timed_out ? 'cut at the time limit' : 'by signal')} after ${attempt.duration_ms} ms`);
      run.scheduleSave();
    },
  });
  run.update({ verification: verifier.record() });
  return verifier;
}

async function runSession(job: PlacedJob, claude: ClaudeCode, env: Record<string, string>, settingsPath: string, run: RunTracker, sandbox: JobSandbox, verifier: Verifier | undefined): Promise<SessionOutcome> {
  let lastStderr: string | undefined;
  try {
    await runClaudeSession({
      prompt: job.task,
      cwd: job.workDir,
      env,
      permissionMode: job.settings.permissionMode,
      allowedTools: job.settings.allowedTools,
      disallowedTools: job.settings.disallowedTools,
      settingSources: [...job.settings.settingSources],
      settingsFile: settingsPath,
      systemPromptAppend: job.settings.systemPromptAppend,
      maxTurns: job.settings.maxTurns,
      resume: job.resumeSession,
      hooks: verifier?.hooks,
      agent: sessionAgent(job.settings.agent, job.settings.disallowedTools),
      abortController: job.abort,
      executable: claude.path,
      onSpawn: (pid) => {
        run.update({ claude_pid: pid, claude_start: processStartTime(pid) });
        run.scheduleSave();
      },
      onStderr: (text) => {
        for (const l of text.split('\n')) {
          if (!l.trim() || isHarmlessStderr(l)) continue;
          run.line(`stderr: ${l}`);
          if (!l.startsWith('[claude-code:')) lastStderr = l.trim(); // tagged lines are diagnostics, not reasons
        }
      },
      onMessage: (message) => {
        run.onMessage(message);
        for (const l of sandbox.watch(message)) run.line(l);
      },
    });
    await verifier?.afterSession(run.progress.finished && run.progress.error === undefined);
    return { lastStderr };
  } catch (err) {
    await verifier?.afterSession(false);
    return { sessionError: err, lastStderr };
  }
}

/** Opens the route, pins the session's settings and runs Claude Code; what it opens goes into `opened`. */
async function startAndRun(job: PlacedJob, deps: RunDeps, run: RunTracker, opened: Opened): Promise<SessionOutcome> {
  // Filled once the sandbox's temp folder and the settings file exist; the shim reads it at each request.
  const perJobValues: PerJobValue[] = [];
  const told: { window?: number | undefined } = {}; // the window the session is told, once its environment is made
  opened.route = await deps.shim.open({
    jobId: job.record.id,
    perJobValues: () => perJobValues,
    endpoint: job.endpoint,
    servedModel: job.servedModel,
    servedWeights: { file: job.record.model.served_file, fingerprint: job.record.model.served_fingerprint },
    context: job.context,
    vision: job.vision,
    log: opened.requestLog,
    onRequestStart: (progress) => run.onRequestStart(progress),
    onRequest: (entry) => run.onRequest(entry),
    outageWaitS: job.settings.outageWaitS,
    probeTimeoutS: job.settings.probeTimeoutS,
    sameModel: sameModelRule(job.servedModel, job.settings.servedName),
    onOutage: run.outage,
    failover: deps.failover && routeFailover(job, deps.failover, run, () => told.window),
  });
  // Not awaited before the spawn: Claude Code needs ~0.3 s to its first request, the snapshot a few ms.
  opened.metricsBefore = snapshotMetrics(job.endpoint, undefined);
  run.line(`${new Date().toISOString()} job ${job.record.id}: ${job.servedModel} on ${job.endpoint.name} in ${job.workDir}`);
  const sessionEnv = {
    ...buildSessionEnv({ baseUrl: opened.route.baseUrl, servedModel: job.servedModel, context: job.context, endpointEnv: job.endpoint.env, menuEnv: job.settings.menuEnv, parentEnv: deps.parentEnv }),
    [JOB_ENV_MARKER]: job.record.id, // a localagents started inside the session refuses to run
  };
  told.window = toldWindow(sessionEnv);
  const overrides = await findOverrides(settingsFiles(job.workDir, job.settings.settingSources, sessionEnv), pinnedEnv(sessionEnv));
  for (const warning of [compactionWarning(sessionEnv, { ...job.endpoint.env, ...job.settings.menuEnv }), ...overrides.map(overrideWarning)]) {
    if (warning === undefined) continue;
    run.update({ warnings: [...job.record.warnings, warning] });
    run.line(`warning: ${warning}`);
  }
  const claude = deps.claudeExecutable ? { path: deps.claudeExecutable, source: 'given' as const } : findClaudeCode({ configured: job.settings.claudeCodePath, env: deps.parentEnv });
  if (claude !== undefined) run.update({ claude_code: { path: claude.path, source: claude.source } });
  const sandbox = await openJobSandbox({ settings: job.settings, workDir: job.workDir, tree: job.worktree?.path ?? job.workDir, sessionEnv, stateDir: deps.stateDir, claudePath: claude?.path });
  opened.sandbox = sandbox;
  run.update({ sandbox: sandbox.record() });
  opened.verifier = openVerifier(job, run, sessionEnv, sandbox);
  opened.settingsFile = await writeSettingsFile({
    ...pinnedSettings(pinnedEnv(sessionEnv, overrides), deniedFrontDoors(await httpFrontDoorPorts(deps.stateDir))),
    ...sandbox.settings,
    ...opened.verifier?.settings,
  });
  perJobValues.push({ name: '{job-settings}', value: dirname(opened.settingsFile.path) }, { name: '{job-temp}', value: sandbox.tempDir ?? '' });
  if (sandbox.problem !== undefined) {
    run.line(`not started: ${sandbox.problem}`);
    return { sandboxProblem: sandbox.problem };
  }
  if (claude === undefined) return { sessionError: new Error(NO_CLAUDE_CODE) };
  return runSession(job, claude, sessionEnv, opened.settingsFile.path, run, sandbox, opened.verifier);
}

/** The final record: status, result, metrics delta and the worktree's outcome. */
async function finish(job: PlacedJob, run: RunTracker, opened: Opened, outcome: SessionOutcome & Pick<RunEnd, 'setupError'>): Promise<void> {
  const { status, error } = finalStatus({
    stopReason: job.stopReason,
    cancelledBy: job.cancelledBy,
    timeoutS: job.settings.timeoutS,
    resultError: run.progress.error,
    finished: run.progress.finished,
    lastBackendError: run.lastBackendError(),
    verifyFailure: opened.verifier?.failure(),
    outageAtEnd: outageAtEnd(job.record, new Date()),
    ...outcome,
  });
  const verification = opened.verifier?.record();
  if (verification !== undefined) run.line(verificationLine(verification));
  run.stop();
  run.line(`${new Date().toISOString()} job ${status}${error ? `: ${error}` : ''}`);
  // Counters of two servers do not subtract: a job that moved has no metrics delta.
  const before = job.record.moves === undefined ? await opened.metricsBefore : undefined;
  const after = before ? await snapshotMetrics(job.endpoint, undefined) : undefined;
  let worktree = job.record.worktree;
  const warnings = [...job.record.warnings];
  if (job.worktree) {
    try {
      worktree = await finishWorktree(job.worktree, job.settings.worktreeCaches);
    } catch (err) {
      warnings.push(`could not inspect the worktree ${job.worktree.path} (kept as is): ${errorMessage(err)}`);
    }
  }
  run.syncProgress();
  // In place: what it left, for the outcome check at the next commit (src/jobs/git/outcome-check.ts).
  const leftTree = job.worktree ? undefined : await leftTreeOf(job.record.work_dir ?? job.record.cwd, job.record.files_touched).catch(() => undefined);
  run.update({
    status,
    error,
    result: run.progress.result,
    finished_at: new Date().toISOString(),
    metrics: before && after ? metricsDelta(before, after) : undefined,
    worktree,
    warnings,
    sandbox: opened.sandbox?.record(),
    ...(verification === undefined ? {} : { verification }),
    ...(leftTree === undefined ? {} : { left_tree: leftTree }),
    ...(outcome.sandboxProblem === undefined ? {} : { error_code: 'sandbox_unavailable' as const }),
  });
}

export async function runPlacedJob(job: PlacedJob, deps: RunDeps): Promise<JobRecord> {
  noteUnwritable(job, deps.log);
  const opened: Opened = {
    transcript: openStream(job.paths.transcript, deps.log),
    events: openStream(job.paths.events, deps.log),
    requestLog: createRequestLog(job.paths.requests, job.settings.dumpRequests ? job.paths.requestsFull : undefined, (err) => deps.log.warn('request log: %s', err.message)),
  };
  const run = createRunTracker(job, { transcript: opened.transcript, events: opened.events, save: deps.save });
  try {
    opened.timer = setTimeout(() => {
      job.stopReason ??= 'timeout';
      job.abort.abort();
    }, job.settings.timeoutS * 1000).unref();
    const outcome = await startAndRun(job, deps, run, opened).catch((err: unknown) => ({ setupError: err }));
    await finish(job, run, opened, outcome);
  } finally {
    clearTimeout(opened.timer);
    run.stop();
    opened.route?.close();
    await opened.settingsFile?.remove().catch(() => undefined);
    await opened.sandbox?.dispose().catch(() => undefined);
    await Promise.all([opened.requestLog.close(), closeStream(opened.transcript), closeStream(opened.events)]);
    await run.flush();
  }
  return job.record;
}
