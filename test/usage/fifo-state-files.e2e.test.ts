/**
 * A FIFO where the read commands expect one of their state files (the job id listing, a usage index month, the
 * price settings cache): opened non-blocking and refused as not a file, the file is rebuilt from the jobs, and the
 * command answers. A plain open of a FIFO waits for a writer forever; the child's timeout would show it. And a
 * link there, to files that would be believed if read: not followed, replaced by the command's own file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { monthFileName } from '../../src/usage/usage-index.js';
import { makeRecord } from '../dashboard/fixtures.js';
import { BIN } from '../e2e/harness.js';

describe('a FIFO in place of a state file', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'la-fifo-state-'));
  const state = join(root, 'state');
  const config = join(root, 'models.yaml');
  const created = new Date();

  beforeAll(async () => {
    writeFileSync(config, 'endpoints: {}\n');
    await createJobStore(state).create(makeRecord({ created }), 'a task\n');
    mkdirSync(join(state, 'usage-index'), { recursive: true });
    mkdirSync(join(state, 'price-settings'), { recursive: true });
    const month = `${created.getUTCFullYear()}-${String(created.getUTCMonth() + 1).padStart(2, '0')}`;
    for (const file of ['usage-index/job-ids.txt', `usage-index/${monthFileName(month)}`, 'price-settings/settings.json']) execFileSync('mkfifo', [join(state, file)]);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([[['usage', '--json']], [['jobs', '--all', '--json']]])('%j answers, counting the job on file', (args) => {
    expect(jobsCounted(root, state, config, args)).toBe(1);
  });
});

/** How many jobs a read command counts (usage's succeeded total, or the rows of jobs --all), after a clean exit. */
function jobsCounted(root: string, state: string, config: string, args: readonly string[]): number {
  const result = spawnSync(process.execPath, [BIN, '--config', config, ...args], { env: { PATH: process.env.PATH ?? '', HOME: root, LOCALAGENTS_STATE_DIR: state }, encoding: 'utf8', timeout: 20_000 });
  expect({ status: result.status, signal: result.signal, stderr: result.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
  const json = JSON.parse(result.stdout) as { total?: { jobs: { succeeded: number } } } | unknown[];
  return Array.isArray(json) ? json.length : (json as { total: { jobs: { succeeded: number } } }).total.jobs.succeeded;
}

describe('a link in place of a state file', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'la-link-state-'));
  const state = join(root, 'state');
  const config = join(root, 'models.yaml');
  const outside = join(root, 'outside');
  const created = new Date();
  const month = `${created.getUTCFullYear()}-${String(created.getUTCMonth() + 1).padStart(2, '0')}`;
  const files = ['job-ids.txt', monthFileName(month)];

  beforeAll(async () => {
    writeFileSync(config, 'endpoints: {}\n');
    await createJobStore(state).create(makeRecord({ created }), 'a task\n');
    const settled = new Date(Date.now() - 60_000);
    utimesSync(join(state, 'jobs'), settled, settled); // a quiet jobs folder: its id listing is kept
    expect(jobsCounted(root, state, config, ['usage', '--json'])).toBe(1);
    // The real files moved outside and emptied of the job (the listing of its id, the month of its sums), then linked back.
    mkdirSync(outside);
    for (const name of files) renameSync(join(state, 'usage-index', name), join(outside, name));
    const listing = readFileSync(join(outside, 'job-ids.txt'), 'utf8');
    writeFileSync(join(outside, 'job-ids.txt'), `${listing.split('\n')[0]}\n`);
    const monthFile = readFileSync(join(outside, monthFileName(month)));
    const firstLine = monthFile.indexOf(10);
    const header = JSON.parse(monthFile.subarray(0, firstLine).toString()) as { days: number[][][] };
    for (const day of header.days) day[6]![0] = 0; // its day's cell says no job succeeded
    writeFileSync(join(outside, monthFileName(month)), Buffer.concat([Buffer.from(JSON.stringify(header)), monthFile.subarray(firstLine)]));
    for (const name of files) symlinkSync(join(outside, name), join(state, 'usage-index', name));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('usage and jobs count the job on file, not what the links point at; the links become the commands\' own files', () => {
    const before = files.map((name) => readFileSync(join(outside, name)));
    expect(jobsCounted(root, state, config, ['usage', '--json'])).toBe(1);
    expect(jobsCounted(root, state, config, ['jobs', '--all', '--json'])).toBe(1);
    expect(files.map((name) => readFileSync(join(outside, name)))).toEqual(before); // nothing written through a link
    for (const name of files) expect(lstatSync(join(state, 'usage-index', name)).isFile()).toBe(true);
  });
});
