/**
 * Runs one placed job to its end: shim route, Claude Code session, transcript,
 * metrics delta, worktree finish, final record. Whatever happens, the
 * finaliser runs and the record says why the job ended.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { processStartTime } from '../coord/process-identity.js';
import { metricsDelta, snapshotMetrics } from '../backends/metrics-delta.js';
import type { BackendKind, Endpoint } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { redactSecrets } from '../secrets/redact.js';
import { createRequestLog, type RequestLogEntry } from '../shim/request-log.js';
import { explainBackendError, explanationText } from '../shim/translate/error-catalogue.js';
import type { Shim } from '../shim/routes.js';
import { findClaudeCode, NO_CLAUDE_CODE } from './claude-binary.js';
import { runClaudeSession } from './claude-session.js';
import { isHarmlessStderr } from './claude-stderr.js';
import type { BackendErrorEvent, JobRecord, JobStatus } from './job-record.js';
import type { JobPaths } from './job-store.js';
import type { JobSettings } from './run-request.js';
import { createLiveRequests, DEFAULT_LIVE_THRESHOLDS, type LiveThresholds } from './live-requests.js';
import { createMediaTally } from './media-tally.js';
import { newProgress, observe } from './session-observer.js';
import { deniedFrontDoors, httpFrontDoorPorts } from '../mcp/http-registry.js';
import { JOB_ENV_MARKER } from './nested-job.js';
import { findOverrides, overrideWarning, pinnedEnv, pinnedSettings, settingsFiles, writeSettingsFile } from './pinned-settings.js';
import { buildSessionEnv, compactionWarning } from './session-env.js';
import { finishWorktree, type PreparedWorktree } from './worktree.js';

/** Why we stopped a session ourselves: cancel_job, timeout_s, or the server shutting down. */
export type StopReason = 'cancelled' | 'timeout' | 'shutdown';

export interface RunDeps {
  readonly shim: Shim;
  readonly log: Logger;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly claudeExecutable?: string | undefined;
  /** Where localagents' HTTP front doors leave their token files (sessions are denied those servers). */
  readonly stateDir: string;
  /** Persists the record; failures are reported in the record's warnings, never fatal. */
  readonly save: (record: JobRecord) => Promise<void>;
  /** When an open request counts as silent or runaway (tests shorten them). */
  readonly liveThresholds?: LiveThresholds | undefined;
}

/** Backend errors kept in the record: the recent ones tell the story, a retry storm must not grow it without end. */
const MAX_BACKEND_ERRORS = 20;
const MAX_ERROR_CHARS = 300;

/** The backend error a request log entry reports, explained; undefined for a request that went well or that the client abandoned. */
function backendError(entry: RequestLogEntry, backend: BackendKind): BackendErrorEvent | undefined {
  if (entry.status === 0 || (entry.status < 400 && entry.error === undefined)) return undefined;
  const message = (entry.original_error ?? entry.error ?? '').slice(0, MAX_ERROR_CHARS);
  const facts = { status: entry.backend_status ?? entry.status, text: `${entry.original_error ?? ''}\n${entry.error ?? ''}`, source: entry.error_source, path: entry.path, backend };
  const explanation = explainBackendError(facts);
  return { at: entry.t, request: entry.request, status: entry.backend_status ?? entry.status, source: entry.error_source, message, explanation: { ...explanation, causes: [...explanation.causes], try: [...explanation.try] } };
}

const SOURCE_WORDS: Readonly<Record<string, string>> = {
  http: 'answered HTTP',
  stream: 'sent an error inside its HTTP 200 stream',
  cut: 'cut the stream',
  connect: 'could not be reached',
  answer: 'answered malformed',
};

function backendErrorLine(e: BackendErrorEvent): string {
  const how = e.source === 'http' || e.source === undefined ? `answered HTTP ${e.status}` : (SOURCE_WORDS[e.source] ?? e.source);
  return `${e.at.slice(11, 19)} backend error on request ${e.request ?? '?'}: the server ${how}: ${e.message}\n  ${explanationText(e.explanation)}`;
}

export interface PlacedJob {
  record: JobRecord;
  readonly paths: JobPaths;
  readonly task: string;
  readonly settings: JobSettings;
  readonly endpoint: Endpoint;
  readonly servedModel: string;
  readonly context: number | undefined;
  readonly vision: boolean;
  readonly worktree: PreparedWorktree | undefined;
  readonly workDir: string;
  readonly resumeSession: string | undefined;
  readonly abort: AbortController;
  stopReason: StopReason | undefined;
}

function openStream(path: string, log: Logger): WriteStream {
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  stream.on('error', (err) => log.warn('cannot write %s: %s', path, err.message));
  return stream;
}

async function closeStream(stream: WriteStream): Promise<void> {
  if (stream.destroyed) return;
  stream.end();
  await once(stream, 'close').catch(() => undefined);
}

export async function runPlacedJob(job: PlacedJob, deps: RunDeps): Promise<JobRecord> {
  if (job.paths.unwritable !== undefined) {
    const warning = `${job.paths.unwritable}; the job runs, but its record, transcript and logs are not on disk, so only this server process can report it (the record is written again every 2 s and at shutdown) — free disk space or make the state directory writable (LOCALAGENTS_STATE_DIR / XDG_STATE_HOME)`;
    job.record = { ...job.record, warnings: [...job.record.warnings, warning] };
    deps.log.error('job %s: %s', job.record.id, warning);
  }
  const transcript = openStream(job.paths.transcript, deps.log);
  const events = openStream(job.paths.events, deps.log);
  const requestLog = createRequestLog(job.paths.requests, job.settings.dumpRequests ? job.paths.requestsFull : undefined, (err) =>
    deps.log.warn('request log: %s', err.message),
  );
  const progress = newProgress();
  let saveTimer: NodeJS.Timeout | undefined;
  let requests = 0;
  let firstCacheRead: number | undefined;
  // Summed from what the backend reported per request, so job_status shows tokens while the job runs
  // (Claude Code's own totals arrive only with its final result, and leave out compaction requests).
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
  const thresholds = deps.liveThresholds ?? DEFAULT_LIVE_THRESHOLDS;
  const live = createLiveRequests(thresholds);
  const media = createMediaTally();
  const backendErrors: BackendErrorEvent[] = [];
  let liveTimer: NodeJS.Timeout | undefined;

  const update = (patch: Partial<JobRecord>): void => {
    job.record = { ...job.record, ...patch };
  };
  const flush = async (): Promise<void> => {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    await deps.save(job.record);
  };
  // Coalesce: a busy session yields dozens of messages a second; the record is rewritten at most 5 times a second.
  const scheduleSave = (): void => {
    saveTimer ??= setTimeout(() => void flush(), 200);
  };
  const line = (text: string): void => {
    transcript.write(`${redactSecrets(text)}\n`);
  };
  /** The record's in_flight from the open requests, and a transcript line for each new flag. */
  const refreshLive = (): void => {
    const { inFlight, raised } = live.view();
    for (const { request, flag } of raised) line(`${new Date().toISOString().slice(11, 19)} request ${request}: ${flag.message}`);
    update({ in_flight: inFlight.length > 0 ? inFlight : undefined });
    if (live.openCount === 0) {
      clearInterval(liveTimer);
      liveTimer = undefined;
    }
    scheduleSave();
  };
  const syncProgress = (): void => {
    update({
      session_id: progress.sessionId ?? job.record.session_id,
      num_turns: progress.numTurns,
      tool_calls: progress.toolCalls,
      files_touched: progress.filesTouched,
      last_activity: progress.lastActivity,
      usage: { ...usage },
      requests,
      first_turn_cache_read_tokens: firstCacheRead,
    });
  };

  const route = await deps.shim.open({
    jobId: job.record.id,
    endpoint: job.endpoint,
    servedModel: job.servedModel,
    context: job.context,
    vision: job.vision,
    log: requestLog,
    onRequestStart: (progress) => {
      live.open(progress);
      liveTimer ??= setInterval(refreshLive, thresholds.refreshMs).unref();
      refreshLive();
    },
    onRequest: (entry) => {
      if (entry.path.startsWith('/v1/messages') && !entry.path.startsWith('/v1/messages/count_tokens')) {
        requests++;
        live.finished(entry);
        const replaced = media.add(entry);
        if (replaced !== undefined) update({ media_replaced: replaced });
        const failure = backendError(entry, job.endpoint.backend);
        if (failure !== undefined) {
          backendErrors.push(failure);
          if (backendErrors.length > MAX_BACKEND_ERRORS) backendErrors.shift();
          update({ backend_errors: [...backendErrors] });
          line(backendErrorLine(failure));
        }
        refreshLive();
        if (firstCacheRead === undefined && entry.usage) firstCacheRead = entry.usage.cache_read_input_tokens ?? 0;
        usage.input_tokens += entry.usage?.input_tokens ?? 0;
        usage.output_tokens += entry.usage?.output_tokens ?? 0;
        usage.cache_read_input_tokens += entry.usage?.cache_read_input_tokens ?? 0;
      }
      syncProgress();
      scheduleSave();
    },
  });

  // Not awaited before the spawn: Claude Code needs ~0.3 s to its first request, the snapshot a few ms.
  const beforeSnapshot = snapshotMetrics(job.endpoint, undefined);
  const timer = setTimeout(() => {
    job.stopReason ??= 'timeout';
    job.abort.abort();
  }, job.settings.timeoutS * 1000);
  timer.unref();

  line(`${new Date().toISOString()} job ${job.record.id}: ${job.servedModel} on ${job.endpoint.name} in ${job.workDir}`);
  const sessionEnv = {
    ...buildSessionEnv({ baseUrl: route.baseUrl, servedModel: job.servedModel, context: job.context, endpointEnv: job.endpoint.env, menuEnv: job.settings.menuEnv, parentEnv: deps.parentEnv }),
    [JOB_ENV_MARKER]: job.record.id, // a localagents started inside the session refuses to run
  };
  const overrides = await findOverrides(settingsFiles(job.workDir, job.settings.settingSources, sessionEnv), pinnedEnv(sessionEnv));
  for (const warning of [compactionWarning(sessionEnv, { ...job.endpoint.env, ...job.settings.menuEnv }), ...overrides.map(overrideWarning)]) {
    if (warning === undefined) continue;
    update({ warnings: [...job.record.warnings, warning] });
    line(`warning: ${warning}`);
  }
  const claude = deps.claudeExecutable ? { path: deps.claudeExecutable, source: 'given' as const } : findClaudeCode({ configured: job.settings.claudeCodePath, env: deps.parentEnv });
  if (claude !== undefined) update({ claude_code: { path: claude.path, source: claude.source } });
  let settingsFile: Awaited<ReturnType<typeof writeSettingsFile>> | undefined;
  let sessionError: unknown = claude === undefined ? new Error(NO_CLAUDE_CODE) : undefined;
  // Claude Code says why it refused to start only on stderr ("exited with code 1" alone helps nobody).
  let lastStderr: string | undefined;
  try {
    settingsFile = await writeSettingsFile(pinnedSettings(pinnedEnv(sessionEnv, overrides), deniedFrontDoors(await httpFrontDoorPorts(deps.stateDir))));
    if (claude !== undefined) await runClaudeSession({
      prompt: job.task,
      cwd: job.workDir,
      env: sessionEnv,
      permissionMode: job.settings.permissionMode,
      allowedTools: job.settings.allowedTools,
      disallowedTools: job.settings.disallowedTools,
      settingSources: [...job.settings.settingSources],
      settingsFile: settingsFile.path,
      systemPromptAppend: job.settings.systemPromptAppend,
      maxTurns: job.settings.maxTurns,
      resume: job.resumeSession,
      abortController: job.abort,
      executable: claude?.path,
      onSpawn: (pid) => {
        update({ claude_pid: pid, claude_start: processStartTime(pid) });
        scheduleSave();
      },
      onStderr: (text) => {
        for (const l of text.split('\n')) {
          if (!l.trim() || isHarmlessStderr(l)) continue;
          line(`stderr: ${l}`);
          if (!l.startsWith('[claude-code:')) lastStderr = l.trim(); // tagged lines are diagnostics, not reasons
        }
      },
      onMessage: (message: SDKMessage) => {
        events.write(`${redactSecrets(JSON.stringify(message))}\n`);
        if (message.type === 'system' && message.subtype === 'init' && job.record.claude_code) update({ claude_code: { ...job.record.claude_code, version: message.claude_code_version } });
        for (const l of observe(progress, message)) line(l);
        syncProgress();
        scheduleSave();
      },
    });
  } catch (err) {
    sessionError = err;
  } finally {
    clearTimeout(timer);
    await settingsFile?.remove().catch(() => undefined);
  }

  let status: JobStatus;
  let error: string | undefined;
  if (job.stopReason === 'cancelled') {
    status = 'cancelled';
    error = 'cancelled on request';
  } else if (job.stopReason === 'shutdown') {
    status = 'interrupted';
    error = 'the localagents server shut down while the job ran; it can be resumed';
  } else if (job.stopReason === 'timeout') {
    status = 'timeout';
    error = `stopped after timeout_s=${job.settings.timeoutS} s`;
  } else if (progress.error !== undefined) {
    status = 'failed';
    error = progress.error;
  } else if (sessionError !== undefined) {
    status = 'failed';
    error = `Claude Code ended with an error: ${errorMessage(sessionError)}${lastStderr ? ` (last stderr line: ${lastStderr.slice(0, 500)})` : ''}`;
  } else if (progress.finished) {
    status = 'succeeded';
  } else {
    status = 'failed';
    error = 'Claude Code exited without a result';
  }
  // After backend errors, the cause in words comes first; what Claude Code made of it follows.
  const lastBackendError = backendErrors[backendErrors.length - 1];
  if ((status === 'failed' || status === 'timeout') && lastBackendError !== undefined) {
    const said = `the server said: ${lastBackendError.message}`;
    error = `${explanationText(lastBackendError.explanation)} (last backend error, request ${lastBackendError.request ?? '?'}; ${said}) — ${error ?? ''}`;
  }
  clearInterval(liveTimer);
  update({ in_flight: undefined });
  line(`${new Date().toISOString()} job ${status}${error ? `: ${error}` : ''}`);

  route.close();
  const before = await beforeSnapshot;
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
  syncProgress();
  update({
    status,
    error,
    result: progress.result,
    finished_at: new Date().toISOString(),
    metrics: before && after ? metricsDelta(before, after) : undefined,
    worktree,
    warnings,
  });
  await Promise.all([requestLog.close(), closeStream(transcript), closeStream(events)]);
  await flush();
  return job.record;
}
