/**
 * Job folders under the state directory: the record (job.json, rewritten
 * atomically), the brief and the logs. The disk is the source of truth, so a
 * new server process sees the jobs of earlier ones.
 */
import { mkdir, writeFile, chmod } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, isLocalAgentsError } from '../../errors.js';
import { removeDeadOwnersFiles } from '../../coord/owned-files.js';
import { privateDir } from '../../coord/private-files.js';
import { isAlive } from '../../coord/process-identity.js';
import { checkJobId } from './job-id.js';
import { listJobIds } from './job-id-listing.js';
import type { SortedJobIds } from './sorted-job-ids.js';
import { FINISHED, type JobRecord } from './job-record.js';
import { readRecordFile, writeRecordFile } from './record-file.js';

export interface JobPaths {
  readonly dir: string;
  readonly record: string;
  readonly task: string;
  readonly transcript: string;
  readonly events: string;
  readonly requests: string;
  readonly requestsFull: string;
  /** What the calling Claude read and wrote about this job through MCP (src/jobs/record/caller-log.ts). */
  readonly caller: string;
  /** Set when the folder or the first record could not be written (a full or read-only disk): the job runs unrecorded. */
  readonly unwritable?: string | undefined;
}

/** A job folder whose record cannot be used: listed as such, never dropped silently. */
export interface DamagedRecord {
  readonly id: string;
  readonly file: string;
  /** What is wrong: the parse or schema error, or why the file could not be read. */
  readonly problem: string;
}

export interface JobListing {
  readonly records: JobRecord[];
  readonly damaged: DamagedRecord[];
}

export interface JobStore {
  readonly root: string;
  paths(id: string): JobPaths;
  /**
   * Creates the folder (0700) and writes the brief and the first record. Never
   * throws for a disk that refuses: the paths come back with `unwritable` set.
   */
  create(record: JobRecord, task: string): Promise<JobPaths>;
  /** Writes the record atomically; re-creates the job folder when an earlier create could not (the disk was full). */
  save(record: JobRecord): Promise<void>;
  /** The record; a `running`/`queued` one whose server died comes back `interrupted`. */
  load(id: string): Promise<JobRecord>;
  /** The record as on disk, neither cached nor reconciled: for reports that read every job once. */
  read(id: string): Promise<JobRecord>;
  /**
   * Oldest first; with `newest`, only that many of the most recent jobs (ids sort by creation time).
   * Records that cannot be read or parsed come back in `damaged`.
   */
  list(newest?: number): Promise<JobListing>;
  /** Every job id on record, oldest first, without reading the records. */
  ids(): Promise<SortedJobIds>;
}

/** Records read at once while listing: thousands of parallel opens run out of file descriptors (EMFILE). */
const LIST_CONCURRENCY = 16;

/** `$XDG_STATE_HOME/localagents` (default ~/.local/state/localagents), or LOCALAGENTS_STATE_DIR. */
export function stateDirFrom(env: Readonly<Record<string, string | undefined>>, home: string = homedir()): string {
  if (env.LOCALAGENTS_STATE_DIR) return env.LOCALAGENTS_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(home, '.local', 'state');
  return join(base, 'localagents');
}

export function createJobStore(stateDir: string): JobStore {
  const root = join(stateDir, 'jobs');

  const paths = (id: string): JobPaths => {
    const dir = join(root, checkJobId(id));
    return {
      dir,
      record: join(dir, 'job.json'),
      task: join(dir, 'task.txt'),
      transcript: join(dir, 'transcript.txt'),
      events: join(dir, 'events.jsonl'),
      requests: join(dir, 'requests.jsonl'),
      requestsFull: join(dir, 'requests_full.jsonl'),
      caller: join(dir, 'caller.jsonl'),
    };
  };

  const save = async (record: JobRecord): Promise<void> => {
    await writeRecordFile(paths(record.id).record, record);
    remember(record);
  };

  /** A `running`/`queued` record whose server died is `interrupted`: said so on disk too, when the disk takes it. */
  const reconcile = async (record: JobRecord): Promise<JobRecord> => {
    if ((record.status !== 'running' && record.status !== 'queued') || isAlive({ pid: record.owner_pid, start: record.owner_start })) return record;
    const interrupted = interruptedRecord(record);
    try {
      await save(interrupted);
      await removeDeadOwnersFiles(paths(record.id).record, ['tmp']);
    } catch {
      // Read-only state: still report it interrupted, which is the truth.
    }
    return interrupted;
  };

  /**
   * Finished records never change again, so each is read from disk once: listing
   * 10,000 jobs is then a readdir plus the few that still run.
   */
  const finished = new Map<string, JobRecord>();
  const remember = (record: JobRecord): JobRecord => {
    if (FINISHED.has(record.status)) finished.set(record.id, record);
    else finished.delete(record.id);
    return record;
  };

  /** The record as on disk: not cached, not reconciled. */
  const read = (id: string): Promise<JobRecord> => readRecordFile(paths(id).record);

  const load = async (id: string): Promise<JobRecord> => {
    const cached = finished.get(id);
    if (cached !== undefined) return cached;
    return remember(await reconcile(await read(id)));
  };

  return {
    root,
    paths,
    save,
    load,
    read,
    async create(record, task) {
      const p = paths(record.id);
      try {
        await privateDir(root);
        await chmod(stateDir, 0o700).catch(() => undefined); // created by someone else; best effort
        await mkdir(p.dir, { mode: 0o700 });
        await writeFile(p.task, task, { mode: 0o600 });
        await save(record);
      } catch (err) {
        // A full or read-only state directory must not stop the work; the record says why nothing is on disk.
        return { ...p, unwritable: isLocalAgentsError(err) ? err.message : `could not create ${p.dir}: ${errorMessage(err)}` };
      }
      return p;
    },
    ids: () => listJobIds(stateDir, root),
    list: async (newest) => listRecords(await listJobIds(stateDir, root), newest, load, (id) => paths(id).record),
  };
}

/** The records of `all` (the `newest` of them, if given), a few at a time; those that cannot be read are `damaged`. */
async function listRecords(all: SortedJobIds, newest: number | undefined, load: (id: string) => Promise<JobRecord>, fileOf: (id: string) => string): Promise<JobListing> {
  const ids = (newest === undefined ? all : all.newest(newest)).toArray();
  const records: JobRecord[] = [];
  const damaged: DamagedRecord[] = [];
  await forEachLimited(ids, LIST_CONCURRENCY, async (id) => {
    try {
      records.push(await load(id));
    } catch (err) {
      // A folder without job.json is a job being created (or removed) right now: nothing to report yet.
      if (isLocalAgentsError(err) && err.code === 'unknown_job') return;
      damaged.push(damagedRecord(id, fileOf(id), err));
    }
  });
  records.sort((a, b) => a.id.localeCompare(b.id));
  damaged.sort((a, b) => a.id.localeCompare(b.id));
  return { records, damaged };
}

/** The record of a job whose server ended while it was queued or running. Pure. */
export function interruptedRecord(record: JobRecord, now: Date = new Date()): JobRecord {
  const finishedAt = record.finished_at ?? now.toISOString();
  // What was live ends with the owner: its open requests are gone, and an outage it waited out is kept as ended with the job.
  const wait = record.outage_wait;
  const outages = wait === undefined ? record.outages : [...(record.outages ?? []), { endpoint: wait.endpoint, started_at: wait.since, ended_at: finishedAt, saw: [wait.saw], outcome: 'job ended' as const }];
  return {
    ...record,
    status: 'interrupted',
    finished_at: finishedAt,
    error: `the localagents server that ran this job (pid ${record.owner_pid}) ended while it was ${record.status}` + (record.session_id ? '; it can be resumed' : ''),
    in_flight: undefined,
    outage_wait: undefined,
    ...(outages === undefined ? {} : { outages }),
  };
}

/** A load failure as a listing shows it: the message without the file name in front (the listing names the file itself). */
export function damagedRecord(id: string, file: string, err: unknown): DamagedRecord {
  const message = errorMessage(err);
  for (const prefix of [`job record ${file} is damaged: `, `job record ${file} `]) {
    if (message.startsWith(prefix)) return { id, file, problem: message.slice(prefix.length) };
  }
  return { id, file, problem: message };
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
