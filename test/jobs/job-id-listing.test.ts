/**
 * The job id listing (src/jobs/record/job-id-listing.ts): the ids of <state>/jobs from a kept listing while the folder
 * is unchanged, and never a stale or damaged one. Real folders; a folder "settles" by having its time set back,
 * as time passing would.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobIdListingFile, listJobIds } from '../../src/jobs/record/job-id-listing.js';

const ids = ['20261101-080000-aaaaaaaaaaaa', '20261202-090000-bbbbbbbbbbbb', '20261203-100000-cccccccccccc'];

describe('listJobIds', () => {
  let state: string;
  let jobs: string;
  const list = async (): Promise<string[]> => (await listJobIds(state, jobs)).toArray();
  const listing = (): string => readFileSync(jobIdListingFile(state), 'utf8');
  /** The jobs folder as it is after a quiet minute. */
  const settle = (): void => {
    const past = new Date(Date.now() - 60_000);
    utimesSync(jobs, past, past);
  };

  beforeEach(() => {
    state = mkdtempSync(join(tmpdir(), 'la-ids-'));
    jobs = join(state, 'jobs');
    for (const id of ids) mkdirSync(join(jobs, id), { recursive: true });
  });
  afterEach(() => rmSync(state, { recursive: true, force: true }));

  it('lists the folders that are job ids, oldest first, and keeps the listing once the folder has settled', async () => {
    mkdirSync(join(jobs, 'not-a-job'));
    writeFileSync(join(jobs, '20261204-100000-dddddddddddd.tmp'), '');
    settle();
    expect(await list()).toEqual(ids);
    expect(listing().split('\n')[1]).toEqual(ids.join(''));
    // Answered from the listing: an id written into it (as a folder the listing was made from would be) is listed.
    const kept = listing().replace(ids[2]!, '20261203-100000-zzzzzzzzzzzz');
    writeFileSync(jobIdListingFile(state), kept);
    expect((await list())[2]).toBe('20261203-100000-zzzzzzzzzzzz');
  });

  it('a job made or removed after the listing shows at once', async () => {
    settle();
    await list();
    const made = '20261204-110000-eeeeeeeeeeee';
    mkdirSync(join(jobs, made));
    expect(await list()).toEqual([...ids, made]);
    rmSync(join(jobs, ids[0]!), { recursive: true });
    expect(await list()).toEqual([ids[1], ids[2], made]);
  });

  it('keeps no listing of a folder changed within the last two seconds (one made in the same tick would be missed)', async () => {
    expect(await list()).toEqual(ids);
    expect(() => statSync(jobIdListingFile(state))).toThrow();
    settle();
    await list();
    expect(statSync(jobIdListingFile(state)).isFile()).toBe(true);
  });

  it('ignores a damaged, foreign or path-like listing and writes a true one', async () => {
    settle();
    await list();
    const header = listing().split('\n')[0]!;
    const damaged = [
      `${header}\n${ids[0]}${ids[1]}${ids[2]!.slice(1)}`, // cut short
      `${header}\n${ids[0]}../../../../etc/passwd00000\n`, // not id characters, the right length
      `${header}\n${ids.join('\n')}`, // ids on lines of their own
      `${header.replace(/ \d+$/, ' 1')}\n${ids[0]}`, // another folder time
      ids.join(''), // no header
      '',
    ];
    for (const text of damaged) {
      writeFileSync(jobIdListingFile(state), text);
      expect(await list()).toEqual(ids);
      expect(listing()).toBe(`${header}\n${ids.join('')}`);
    }
  });

  it('no jobs folder: no ids, no listing', async () => {
    rmSync(jobs, { recursive: true });
    expect(await list()).toEqual([]);
    expect(() => statSync(jobIdListingFile(state))).toThrow();
  });
});
