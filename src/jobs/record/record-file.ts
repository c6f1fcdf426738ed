/**
 * One job record file, job.json: written atomically (a reader never sees half a
 * record), read back with a byte limit and checked against the record's shape.
 * A file that is there but is not a job record is reported as damaged, never
 * rewritten.
 */
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ownedFileName } from '../../coord/owned-files.js';
import { readRegularFile } from '../../coord/regular-file.js';
import { LocalAgentsError, errorMessage, isErrno } from '../../errors.js';
import { checkShape } from '../../json-shape.js';
import { pathError } from '../../path-errors.js';
import { redactDeep } from '../../secrets/redact.js';
import type { JobRecord } from './job-record.js';
import { JOB_RECORD_SHAPE } from './job-record-shape.js';

/**
 * Writes then renames, redacted. The temp file is named after its owner: one left by a server SIGKILLed
 * mid-write is swept once that server is known dead. A folder the disk refused at create is made now.
 */
export async function writeRecordFile(file: string, record: JobRecord): Promise<void> {
  const temp = ownedFileName(file, 'tmp');
  const write = async (): Promise<void> => {
    await writeFile(temp, `${JSON.stringify(redactDeep(record), null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
  };
  try {
    try {
      await write();
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await write();
    }
  } catch (err) {
    await unlink(temp).catch(() => undefined); // a half-written temp file (ENOSPC) is litter; the target is intact
    throw new LocalAgentsError('state_unwritable', `could not write the job record ${file}: ${errorMessage(err)}`, {
      hint: 'Free disk space or make the state directory writable (LOCALAGENTS_STATE_DIR / XDG_STATE_HOME); the job itself keeps running.',
      cause: err,
    });
  }
}

/** The record as on disk: `unknown_job` when the folder has no job.json, `bad_state` when the file is not a job record. */
export async function readRecordFile(file: string): Promise<JobRecord> {
  let text: string;
  try {
    text = (await readRegularFile(file)).toString('utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) {
      const id = basename(dirname(file));
      throw new LocalAgentsError('unknown_job', `no job ${id} in ${dirname(dirname(file))}`, { details: { job_id: id } });
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
}

/** A record that is there but is not a job record: said as such, and left for the user to look at. */
function damagedRecordError(file: string, problem: string): LocalAgentsError {
  return new LocalAgentsError('bad_state', `job record ${file} is damaged: ${problem}`, {
    hint: `localagents never rewrites a damaged record; look at it, then move its folder aside (mv '${dirname(file)}' /tmp/) to hide the job.`,
    details: { path: file },
  });
}
