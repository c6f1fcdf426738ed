/**
 * Marks the jobs that a `localagents run` process hosts, so `localagents
 * cancel` from another shell knows that SIGTERM to the job's owner cancels
 * just that job (run treats SIGTERM as "cancel my job"); an MCP server owner
 * would instead stop every job it runs. One file per job under
 * <state>/run-hosts/, removed when the run ends.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkJobId } from '../jobs/job-id.js';
import { readRegularFile } from '../coord/regular-file.js';

function markerPath(stateDir: string, id: string): string {
  return join(stateDir, 'run-hosts', `${checkJobId(id)}.pid`);
}

/** Writes the marker; returns its remover. A marker that cannot be written only costs cross-shell cancel. */
export async function markRunHost(stateDir: string, id: string, pid: number): Promise<() => Promise<void>> {
  const path = markerPath(stateDir, id);
  try {
    await mkdir(join(stateDir, 'run-hosts'), { recursive: true, mode: 0o700 });
    await writeFile(path, `${pid}\n`, { mode: 0o600 });
  } catch {
    return () => Promise.resolve(); // read-only state dir: `localagents cancel` will say it cannot stop the job
  }
  return () => rm(path, { force: true });
}

/** The pid of the `localagents run` process that hosts the job, if one said so. */
export async function runHostPid(stateDir: string, id: string): Promise<number | undefined> {
  try {
    const pid = Number((await readRegularFile(markerPath(stateDir, id))).toString('utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
