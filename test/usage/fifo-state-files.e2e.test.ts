/**
 * A FIFO where the read commands expect one of their state files (the job id listing, a usage store month, the
 * price settings cache): opened non-blocking and refused as not a file, the file is rebuilt from the jobs, and the command
 * answers. A plain open of a FIFO waits for a writer forever; the child's timeout would show it. And a link
 * there, to a file that would be believed if read: not followed, replaced by the command's own file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { usageMonthFile } from '../../src/jobs/record/state-paths.js';
import { makeRecord } from '../dashboard/fixtures.js';
import { BIN } from '../e2e/harness.js';

describe('a FIFO in place of a state file', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'la-fifo-state-'));
  const state = join(root, 'state');
  const config = join(root, 'models.yaml');
  const created = new Date();

  beforeAll(async () => {
    writeFileSync(config, 'endpoints: {}\n');
    const record = makeRecord({ created });
    await createJobStore(state).create(record, 'a task\n');
    mkdirSync(join(state, 'usage-index'), { recursive: true });
    mkdirSync(join(state, 'price-settings'), { recursive: true });
    for (const file of [join(state, 'usage-index/job-ids.txt'), usageMonthFile(state, record.id), join(state, 'price-settings/settings.json')]) execFileSync('mkfifo', [file]);
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
  const record = makeRecord({ created: new Date() });
  const file = usageMonthFile(state, record.id);
  const moved = join(outside, 'month.jsonl');

  beforeAll(async () => {
    writeFileSync(config, 'endpoints: {}\n');
    await createJobStore(state).create(record, 'a task\n');
    expect(jobsCounted(root, state, config, ['usage', '--json'])).toBe(1);
    // The real file moved outside, its summary edited to say the job failed, then linked back.
    mkdirSync(outside);
    renameSync(file, moved);
    writeFileSync(moved, readFileSync(moved, 'utf8').replace('"succeeded"', '"failed"'));
    symlinkSync(moved, file);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("usage counts the job on file, not what the link points at; the link becomes the command's own file", () => {
    const before = readFileSync(moved);
    expect(jobsCounted(root, state, config, ['usage', '--json'])).toBe(1);
    expect(jobsCounted(root, state, config, ['jobs', '--all', '--json'])).toBe(1);
    expect(readFileSync(moved)).toEqual(before); // nothing written through the link
    expect(lstatSync(file).isFile()).toBe(true);
  });
});
