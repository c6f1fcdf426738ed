/**
 * Job folders under the state directory: the record (job.json, rewritten
 * atomically), the brief and the logs. The disk is the source of truth, so a
 * new server process sees the jobs of earlier ones.
 */
import { mkdir, readdir, rename, writeFile, chmod, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { LocalAgentsError, errorMessage, isErrno, isLocalAgentsError } from '../errors.js';
import { readRegularFile } from '../coord/regular-file.js';
import { pathError } from '../path-errors.js';
import { ownedFileName, removeDeadOwnersFiles } from '../coord/owned-files.js';
import { privateDir } from '../coord/private-files.js';
import { isAlive } from '../coord/process-identity.js';
import { redactDeep } from '../secrets/redact.js';
import { checkJobId } from './job-id.js';
import { checkShape } from '../json-shape.js';
import { FINISHED, type JobRecord } from './job-record.js';
import { JOB_RECORD_SHAPE } from './job-record-shape.js';

export interface JobPaths {
  readonly dir: string;
  readonly record: string;
  readonly task: string;
  readonly transcript: string;
  readonly events: string;
  readonly requests: string;
  readonly requestsFull: string;
  /** What the calling Claude read and wrote about this job through MCP (src/jobs/caller-log.ts). */
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
  ids(): Promise<string[]>;
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
    const target = paths(record.id).record;
    // Write then rename: a reader (another server, the dashboard) never sees half a record.
    // Named after its owner: one left by a server SIGKILLed mid-write is swept once that server is known dead.
    const temp = ownedFileName(target, 'tmp');
    const write = async (): Promise<void> => {
      await writeFile(temp, `${JSON.stringify(redactDeep(record), null, 2)}\n`, { mode: 0o600 });
      await rename(temp, target);
    };
    try {
      try {
        await write();
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
        // The folder was never made (the disk refused at create): make it now that a write may succeed.
        await mkdir(paths(record.id).dir, { recursive: true, mode: 0o700 });
        await write();
      }
      remember(record);
    } catch (err) {
      await unlink(temp).catch(() => undefined); // a half-written temp file (ENOSPC) is litter; the target is intact
      throw new LocalAgentsError('state_unwritable', `could not write the job record ${target}: ${errorMessage(err)}`, {
        hint: 'Free disk space or make the state directory writable (LOCALAGENTS_STATE_DIR / XDG_STATE_HOME); the job itself keeps running.',
        cause: err,
      });
    }
  };

  const reconcile = async (record: JobRecord): Promise<JobRecord> => {
    if ((record.status !== 'running' && record.status !== 'queued') || isAlive({ pid: record.owner_pid, start: record.owner_start })) return record;
    const interrupted: JobRecord = {
      ...record,
      status: 'interrupted',
      finished_at: record.finished_at ?? new Date().toISOString(),
      error: `the localagents server that ran this job (pid ${record.owner_pid}) ended while it was ${record.status}` +
        (record.session_id ? '; it can be resumed' : ''),
    };
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
  const read = async (id: string): Promise<JobRecord> => {
    const file = paths(id).record;
    let text: string;
    try {
      text = (await readRegularFile(file)).toString('utf8');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) {
        throw new LocalAgentsError('unknown_job', `no job ${id} in ${root}`, { details: { job_id: id } });
      }
      throw pathError(err) ?? err;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw damagedRecordError(file, errorMessage(err));
    }
    const parsed = checkShape<JobRecord>(json, JOB_RECORD_SHAPE);
    if (!parsed.ok) throw damagedRecordError(file, parsed.problem);
    return parsed.value;
  };

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
    async ids() {
      let names: string[];
      try {
        names = await readdir(root);
      } catch (err) {
        // No job yet, or a state directory that cannot hold jobs: those run unrecorded, and their records say why.
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
        throw pathError(err) ?? err;
      }
      return names.filter((n) => /^\d{8}-\d{6}-[0-9a-z]{12}$/.test(n)).sort();
    },
    async list(newest) {
      const all = await this.ids();
      const ids = newest === undefined ? all : all.slice(-newest);
      const records: JobRecord[] = [];
      const damaged: DamagedRecord[] = [];
      await forEachLimited(ids, LIST_CONCURRENCY, async (id) => {
        try {
          records.push(await load(id));
        } catch (err) {
          // A folder without job.json is a job being created (or removed) right now: nothing to report yet.
          if (isLocalAgentsError(err) && err.code === 'unknown_job') return;
          damaged.push(damagedRecord(id, paths(id).record, err));
        }
      });
      records.sort((a, b) => a.id.localeCompare(b.id));
      damaged.sort((a, b) => a.id.localeCompare(b.id));
      return { records, damaged };
    },
  };
}

/** A record that is there but is not a job record: said as such, and left for the user to look at. */
function damagedRecordError(file: string, problem: string): LocalAgentsError {
  return new LocalAgentsError('bad_state', `job record ${file} is damaged: ${problem}`, {
    hint: `localagents never rewrites a damaged record; look at it, then move its folder aside (mv '${dirname(file)}' /tmp/) to hide the job.`,
    details: { path: file },
  });
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
