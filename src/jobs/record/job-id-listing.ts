/**
 * The job ids under `<state>/jobs`, oldest first, without reading a directory of a year's jobs on every call: a
 * listing is kept in `<state>/usage-index/job-ids.txt` with the jobs folder's identity and modification time, and
 * used while the folder still has that time (creating or removing a job folder changes it). A status line that
 * runs every few hundred milliseconds then reads one small file instead of 10,000 directory entries.
 *
 * A folder's time has the file system's coarse clock: a job made in the same tick as the listing was read would
 * not change it. So a listing is written only for a folder unchanged for {@link SETTLED_MS} (git's "racily clean"
 * rule); a busy folder is read whole until it settles. The file is a cache: missing, damaged, too big or of
 * another folder, it is ignored and rewritten; writing it is best effort.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isJobId, JOB_ID_LENGTH } from '../../coord/job-id-shape.js';
import { privateDir, writePrivateFile } from '../../coord/private-files.js';
import { readRegularFile } from '../../coord/regular-file.js';
import { isErrno } from '../../errors.js';
import { pathError } from '../../path-errors.js';
import { usageIndexDir } from './state-paths.js';
import { SortedJobIds } from './sorted-job-ids.js';

const VERSION = 'localagents job ids v2';
/** How long the jobs folder must have stayed unchanged before its listing is kept. */
const SETTLED_MS = 2000;
/** 28 bytes an id: a listing of a million jobs is well under this. */
const MAX_LISTING_BYTES = 64 * 1024 * 1024;

export const jobIdListingFile = (stateDir: string): string => join(usageIndexDir(stateDir), 'job-ids.txt');

interface FolderTime {
  readonly header: string;
  readonly mtimeMs: number;
}

async function folderTime(jobsRoot: string): Promise<FolderTime | undefined> {
  try {
    const s = await stat(jobsRoot, { bigint: true });
    return { header: `${VERSION} ${s.dev} ${s.ino} ${s.mtimeNs}`, mtimeMs: Number(s.mtimeNs / 1_000_000n) };
  } catch (err) {
    // No job yet, or a state directory that cannot hold jobs: those run unrecorded, and their records say why.
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
    throw pathError(err) ?? err;
  }
}

/** What a listing's ids are made of: no `/` or `.`, so none can name a path outside the jobs folder. */
const ID_CHARACTERS = /^[0-9a-z-]*$/;

/**
 * The ids a listing holds, if it is of this folder at this time and whole: ids end to end, of id characters.
 * Checked by shape, not id by id: only this module writes it, sorted, through a rename, and the header ties it
 * to the folder's state; checking 10,000 ids one by one would cost the status line more than reading them.
 */
async function readListing(file: string, header: string): Promise<SortedJobIds | undefined> {
  let text: string;
  try {
    text = (await readRegularFile(file, { maxBytes: MAX_LISTING_BYTES })).toString('utf8');
  } catch {
    return undefined;
  }
  const body = text.slice(header.length + 1);
  const whole = text.startsWith(`${header}\n`) && body.length % JOB_ID_LENGTH === 0 && ID_CHARACTERS.test(body);
  return whole ? SortedJobIds.fromJoined(body) : undefined;
}

async function readFolder(jobsRoot: string): Promise<SortedJobIds> {
  try {
    return SortedJobIds.of((await readdir(jobsRoot)).filter(isJobId).sort());
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return SortedJobIds.of([]);
    throw pathError(err) ?? err;
  }
}

/** Every job folder's name under `<state>/jobs`, oldest first. */
export async function listJobIds(stateDir: string, jobsRoot: string): Promise<SortedJobIds> {
  const before = await folderTime(jobsRoot);
  if (before === undefined) return SortedJobIds.of([]);
  const file = jobIdListingFile(stateDir);
  const listed = await readListing(file, before.header);
  if (listed !== undefined) return listed;
  const ids = await readFolder(jobsRoot);
  const after = await folderTime(jobsRoot).catch(() => undefined);
  if (after?.header === before.header && Date.now() - before.mtimeMs > SETTLED_MS) {
    await privateDir(usageIndexDir(stateDir))
      .then(() => writePrivateFile(file, `${before.header}\n${ids.text()}`))
      .catch(() => undefined);
  }
  return ids;
}
