/**
 * A reader that stops early (`localagents jobs --all --json | head -c 1`): the command ends quietly with exit 0,
 * as a line of `head` expects, never with Node's "Unhandled 'error' event" stack trace for EPIPE.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { makeRecord } from '../dashboard/fixtures.js';
import { BIN } from '../e2e/harness.js';

describe('output into a pipe its reader closes', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'la-closed-pipe-'));
  const state = join(root, 'state');
  const config = join(root, 'models.yaml');

  beforeAll(async () => {
    writeFileSync(config, 'endpoints: {}\n');
    const store = createJobStore(state);
    // Far more than a pipe holds (64 KiB), so the command is still writing when the reader has gone.
    for (let i = 0; i < 300; i++) await store.create(makeRecord({ created: new Date(Date.UTC(2026, 10, 1) + i * 60_000) }), 'a task\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([[['jobs', '--all', '--json']], [['usage', '--by', 'job']]])('%j | a reader that takes one byte: exit 0, nothing on stderr', async (args) => {
    const child = spawn(process.execPath, [BIN, '--config', config, ...args], { env: { PATH: process.env.PATH ?? '', HOME: root, LOCALAGENTS_STATE_DIR: state }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
