/**
 * A Claude Code that cannot start (a broken install, a refused flag): the job
 * fails at once with the exit code and the reason Claude Code printed, and the
 * server keeps serving.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, makeDirs, ok, startInProcess, type InProcess } from './in-process.js';

describe('Claude Code exits with an error before its first request', () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    const dirs = makeDirs();
    const fake = join(dirs.root, 'fake-claude');
    writeFileSync(fake, '#!/bin/sh\necho "[claude-code:diagnostic] {}" >&2\necho "fatal: cannot write the config directory" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    h = await startInProcess({ yaml: endpointYaml(sim.url), dirs, claudeExecutable: fake });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('the job fails with the exit code and Claude Code\'s own last stderr line; no backend request was made', async () => {
    const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 30 }));
    expect(record).toMatchObject({
      status: 'failed',
      error: 'Claude Code ended with an error: Claude Code process exited with code 3 (last stderr line: fatal: cannot write the config directory)',
    });
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
    expect(ok(await h.call('jobs', { job_id: String(record.id) })).status).toBe('failed');
  });
});
