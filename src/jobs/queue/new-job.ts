/**
 * The two questions a new job asks before it is queued: which session, model
 * and tree a resume_job continues, and what its first record says.
 */
import { selfIdentity } from '../../coord/process-identity.js';
import { BadArgumentError } from '../../errors.js';
import { checkJobId } from '../record/job-id.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';
import type { JobStore } from '../record/job-store.js';
import type { JobSettings, RunRequest } from '../session/run-request.js';
import type { JobAgent } from '../session/agent-job.js';

/** What the record keeps of the agent: which file ran, in which version, and where its model came from. */
function agentRecord(agent: JobAgent): NonNullable<JobRecord['agent']> {
  return { name: agent.name, source: agent.source, file: agent.file, sha256: agent.sha256, model_from: agent.modelFrom, ...(agent.tools === undefined ? {} : { tools: [...agent.tools] }) };
}

export interface ResumeTarget {
  /** The request with the earlier job's model, endpoint and tree filled in. */
  readonly effective: RunRequest;
  readonly resumeSession: string | undefined;
  /**
   * The menu entry the earlier job resolved through. Its settings apply again: the
   * served id in `effective.model` often differs from the entry's name and would miss it.
   */
  readonly menuEntry: string | undefined;
}

/** For `resume_job`: the same session, same model, same tree (Claude Code finds its transcript by cwd). */
export async function resumeTarget(store: JobStore, request: RunRequest, busy: (id: string) => boolean): Promise<ResumeTarget> {
  if (request.resumeJob === undefined) return { effective: request, resumeSession: undefined, menuEntry: undefined };
  const previous = await store.load(checkJobId(request.resumeJob, 'resume_job'));
  if (!previous.session_id) {
    throw new BadArgumentError('resume_job', `job ${previous.id} has no Claude Code session to resume (it never started one)`);
  }
  // Its own session is in use while it runs, in this process or another (the record says so; a dead owner's reads interrupted).
  if (busy(previous.id) || !FINISHED.has(previous.status)) {
    throw sessionBusy(previous.id, previous.id, previous.status);
  }
  return {
    // The same agent again, unless the caller names one: its definition is read afresh (the record says which ran).
    effective: { ...request, agent: request.agent ?? previous.agent?.name, model: previous.model.served, endpoint: previous.model.endpoint, cwd: previous.work_dir ?? previous.cwd, isolation: 'none' },
    resumeSession: previous.session_id,
    menuEntry: previous.model.menu_entry,
  };
}

/** The error for a second session on one transcript: names the job that runs it now. */
export function sessionBusy(resumed: string, runningJob: string, status = 'running'): BadArgumentError {
  const who = runningJob === resumed ? `job ${runningJob} is still ${status}` : `its Claude Code session is already being continued by job ${runningJob}`;
  return new BadArgumentError('resume_job', `cannot resume job ${resumed}: ${who}; only one session may run on a transcript at a time`, {
    hint: `Wait for job ${runningJob} to finish or cancel it, then resume job ${runningJob}.`,
    details: { running_job: runningJob },
  });
}

export interface NewJob {
  readonly id: string;
  readonly task: string;
  readonly requestedModel: string | undefined;
  /** The menu entry the request names, whose settings the job took. */
  readonly menuEntry: string | undefined;
  readonly logDir: string;
  readonly settings: JobSettings;
  readonly resumedFrom: string | undefined;
  readonly sessionId: string | undefined;
}

/** The record of a job that has not started: owned by this process, waiting for a slot. */
export function newQueuedRecord(job: NewJob): JobRecord {
  const { settings } = job;
  return {
    id: job.id,
    status: 'queued',
    created_at: new Date().toISOString(),
    task_preview: job.task.slice(0, 200),
    model: { requested: job.requestedModel, menu_entry: job.menuEntry },
    log_dir: job.logDir,
    cwd: settings.cwd,
    isolation: settings.isolation,
    permission_mode: settings.permissionMode,
    max_turns: settings.maxTurns,
    timeout_s: settings.timeoutS,
    allowed_tools: [...settings.allowedTools],
    disallowed_tools: [...settings.disallowedTools],
    setting_sources: [...settings.settingSources],
    resumed_from: job.resumedFrom,
    session_id: job.sessionId,
    num_turns: 0,
    tool_calls: 0,
    files_touched: [],
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 },
    requests: 0,
    warnings: [...settings.agentWarnings],
    ...(settings.agent === undefined ? {} : { agent: agentRecord(settings.agent) }),
    owner_pid: selfIdentity.pid,
    owner_start: selfIdentity.start,
  };
}
