/**
 * Runs one placed job to its end: shim route, Claude Code session, transcript,
 * metrics delta, worktree finish, final record. Whatever happens, the
 * finaliser runs and the record says why the job ended.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { metricsDelta, snapshotMetrics } from '../backends/metrics-delta.js';
import type { Endpoint } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { createRequestLog } from '../shim/request-log.js';
import type { Shim } from '../shim/routes.js';
import { runClaudeSession } from './claude-session.js';
import type { JobRecord, JobStatus } from './job-record.js';
import type { JobPaths } from './job-store.js';
import type { JobSettings } from './run-request.js';
import { newProgress, observe } from './session-observer.js';
import { buildSessionEnv, compactionWarning } from './session-env.js';
import { finishWorktree, type PreparedWorktree } from './worktree.js';

/** Why we stopped a session ourselves: cancel_job, timeout_s, or the server shutting down. */
export type StopReason = 'cancelled' | 'timeout' | 'shutdown';

export interface RunDeps {
  readonly shim: Shim;
  readonly log: Logger;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly claudeExecutable?: string | undefined;
  /** Persists the record; failures are reported in the record's warnings, never fatal. */
  readonly save: (record: JobRecord) => Promise<void>;
}

export interface PlacedJob {
  record: JobRecord;
  readonly paths: JobPaths;
  readonly task: string;
  readonly settings: JobSettings;
  readonly endpoint: Endpoint;
  readonly servedModel: string;
  readonly context: number | undefined;
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
    transcript.write(`${text}\n`);
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
    log: requestLog,
    onRequest: (entry) => {
      if (entry.path.startsWith('/v1/messages') && !entry.path.startsWith('/v1/messages/count_tokens')) {
        requests++;
        if (firstCacheRead === undefined && entry.usage) firstCacheRead = entry.usage.cache_read_input_tokens ?? 0;
        usage.input_tokens += entry.usage?.input_tokens ?? 0;
        usage.output_tokens += entry.usage?.output_tokens ?? 0;
        usage.cache_read_input_tokens += entry.usage?.cache_read_input_tokens ?? 0;
        if (entry.status >= 400) line(`${new Date().toISOString().slice(11, 19)} backend answered HTTP ${entry.status}: ${entry.error ?? entry.original_error ?? ''}`);
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
  const sessionEnv = buildSessionEnv({ baseUrl: route.baseUrl, servedModel: job.servedModel, context: job.context, endpointEnv: job.endpoint.env, parentEnv: deps.parentEnv });
  const envWarning = compactionWarning(sessionEnv);
  if (envWarning !== undefined) {
    update({ warnings: [...job.record.warnings, envWarning] });
    line(`warning: ${envWarning}`);
  }
  let sessionError: unknown;
  // Claude Code says why it refused to start only on stderr ("exited with code 1" alone helps nobody).
  let lastStderr: string | undefined;
  try {
    await runClaudeSession({
      prompt: job.task,
      cwd: job.workDir,
      env: sessionEnv,
      permissionMode: job.settings.permissionMode,
      allowedTools: job.settings.allowedTools,
      disallowedTools: job.settings.disallowedTools,
      settingSources: [...job.settings.settingSources],
      systemPromptAppend: job.settings.systemPromptAppend,
      maxTurns: job.settings.maxTurns,
      resume: job.resumeSession,
      abortController: job.abort,
      executable: deps.claudeExecutable,
      onSpawn: (pid) => {
        update({ claude_pid: pid });
        scheduleSave();
      },
      onStderr: (text) => {
        for (const l of text.split('\n')) {
          if (!l.trim()) continue;
          line(`stderr: ${l}`);
          if (!l.startsWith('[claude-code:')) lastStderr = l.trim(); // tagged lines are diagnostics, not reasons
        }
      },
      onMessage: (message: SDKMessage) => {
        events.write(`${JSON.stringify(message)}\n`);
        for (const l of observe(progress, message)) line(l);
        syncProgress();
        scheduleSave();
      },
    });
  } catch (err) {
    sessionError = err;
  } finally {
    clearTimeout(timer);
  }

  let status: JobStatus;
  let error: string | undefined;
  if (job.stopReason === 'cancelled') {
    status = 'cancelled';
    error = 'cancelled on request (cancel_job, localagents cancel or Ctrl-C)';
  } else if (job.stopReason === 'shutdown') {
    status = 'interrupted';
    error = `the localagents server shut down while the job ran; continue it with run_agent(resume_job="${job.record.id}")`;
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
