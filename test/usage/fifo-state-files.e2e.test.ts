/**
 * A FIFO where the read commands expect one of their state files (the job id listing, a usage index month, the
 * price settings cache): opened non-blocking and refused as not a file, the file is rebuilt from the jobs, and the
 * command answers. A plain open of a FIFO waits for a writer forever; the child's timeout would show it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/job-store.js';
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
    const result = spawnSync(process.execPath, [BIN, '--config', config, ...args], { env: { PATH: process.env.PATH ?? '', HOME: root, LOCALAGENTS_STATE_DIR: state }, encoding: 'utf8', timeout: 20_000 });
    expect({ status: result.status, signal: result.signal, stderr: result.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    const json = JSON.parse(result.stdout) as { total?: { jobs: { succeeded: number } } } | unknown[];
    expect(Array.isArray(json) ? json.length : (json as { total: { jobs: { succeeded: number } } }).total.jobs.succeeded).toBe(1);
  });
});
