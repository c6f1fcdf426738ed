/**
 * Asking another localagents process to cancel one of its jobs: only the owner
 * can stop a job cleanly (it holds the Claude Code session, the worktree, the
 * lease), so a request is a file named after the job in the state directory's
 * cancel inbox, and the owner looks there while it has jobs. Every id here has
 * already been checked by the jobs layer (src/jobs/record/job-id.ts) before it names a file.
 */
import { lstat, mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isJobId } from './job-id-shape.js';
import { formatIdentity, selfIdentity } from './process-identity.js';

/** How often an owner with jobs looks at its inbox; cancel_job promises the owner reacts within 2 s. */
export const CANCEL_POLL_MS = 250;

export function cancelInbox(stateDir: string): string {
  return join(stateDir, 'coord', 'cancel');
}

/** Leaves a cancel request for the owner of `jobId`. */
export async function requestCancel(stateDir: string, jobId: string): Promise<void> {
  const dir = cancelInbox(stateDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, jobId), `${formatIdentity(selfIdentity)}\n`, { mode: 0o600 });
}

/** Withdraws a request (answered, or its job ended some other way). */
export async function withdrawCancel(stateDir: string, jobId: string): Promise<void> {
  await unlink(join(cancelInbox(stateDir), jobId)).catch(() => undefined);
}

/** Owners look every 250 ms and askers withdraw after waiting, so a request this old has nobody to answer it. */
export const STALE_REQUEST_MS = 5 * 60_000;

/**
 * Removes requests nobody will answer (their job's owner is gone, or they were
 * forged): only plain files named like a job id, by lstat, so a symbolic
 * link, a folder or anything else someone put in the inbox is left alone.
 */
async function sweepStale(dir: string, names: readonly string[]): Promise<void> {
  const now = Date.now();
  await Promise.all(
    names.filter(isJobId).map(async (name) => {
      const path = join(dir, name);
      const stats = await lstat(path).catch(() => undefined);
      if (stats?.isFile() === true && now - stats.mtimeMs > STALE_REQUEST_MS) await unlink(path).catch(() => undefined);
    }),
  );
}

/** The requests for jobs in `owned`, each taken out of the inbox as it is returned; stale ones of other jobs are swept. */
export async function takeCancelRequests(stateDir: string, owned: ReadonlySet<string>): Promise<string[]> {
  const dir = cancelInbox(stateDir);
  let names: string[];
  let linked: boolean;
  try {
    linked = (await lstat(dir)).isSymbolicLink();
    names = await readdir(dir);
  } catch {
    return [];
  }
  const mine = names.filter((n) => owned.has(n));
  await Promise.all(mine.map((id) => withdrawCancel(stateDir, id)));
  // Never through a link: what an inbox that is a symbolic link points at is not ours to clean.
  if (!linked) await sweepStale(dir, names.filter((n) => !owned.has(n)));
  return mine;
}

/** Polls the inbox for this process's jobs and calls `onCancel` for each request; returns a stop function. */
export function watchCancelRequests(stateDir: string, owned: () => ReadonlySet<string>, onCancel: (jobId: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async (): Promise<void> => {
    const ids = owned();
    if (ids.size > 0) for (const id of await takeCancelRequests(stateDir, ids)) onCancel(id);
    if (!stopped) timer = setTimeout(() => void tick(), CANCEL_POLL_MS).unref();
  };
  timer = setTimeout(() => void tick(), CANCEL_POLL_MS).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
