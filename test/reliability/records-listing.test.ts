/**
 * Listing jobs when the records are many, damaged, or out of clock order: the
 * real CLI (`localagents jobs`) and the real MCP server over stdio, each in a
 * child whose file-descriptor limit is 256 (`ulimit -n`), list every one of
 * 2,008 records and name the damaged ones; a job started while the clock was
 * set back a day still shows in list_jobs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newJobId } from '../../src/jobs/record/job-id.js';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { BIN } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { baseEnv, endpointYaml, makeDirs, ok, startInProcess, until, type Dirs } from './in-process.js';

function finished(id: string, i: number): JobRecord {
  return {
    id, status: 'succeeded', created_at: new Date().toISOString(), finished_at: new Date().toISOString(), task_preview: `task ${i}`, model: { served: 'm' },
    cwd: '/tmp', isolation: 'none', permission_mode: 'acceptEdits', max_turns: 1, timeout_s: 1, allowed_tools: [], disallowed_tools: [], num_turns: 1,
    tool_calls: 0, files_touched: [], usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, requests: 1, result: `r${i}`, warnings: [],
    owner_pid: 4_194_305,
  };
}

/** Writes `count` finished records, one a second back from now; returns their ids, oldest first. */
function writeRecords(state: string, count: number): string[] {
  const ids: string[] = [];
  for (let i = count; i > 0; i--) {
    const id = newJobId(new Date(Date.now() - i * 1000));
    mkdirSync(join(state, 'jobs', id), { recursive: true });
    writeFileSync(join(state, 'jobs', id, 'job.json'), JSON.stringify(finished(id, i)));
    ids.push(id);
  }
  return ids;
}

const ULIMIT = 'ulimit -n 256 && exec "$0" "$@"';

describe('2,008 records, two of them damaged, listed under a 256 file-descriptor limit', () => {
  let dirs: Dirs;
  let ids: string[];
  let truncated: string;
  let badStatus: string;

  beforeAll(() => {
    dirs = makeDirs('la-many-');
    writeFileSync(dirs.config, endpointYaml('http://127.0.0.1:9'));
    ids = writeRecords(dirs.state, 2006);
    [truncated, badStatus] = [newJobId(new Date(Date.now() - 5_000_000)), newJobId(new Date(Date.now() - 4_000_000))] as [string, string];
    for (const id of [truncated, badStatus]) mkdirSync(join(dirs.state, 'jobs', id));
    writeFileSync(join(dirs.state, 'jobs', truncated, 'job.json'), '{"id": "cut off by a cra');
    writeFileSync(join(dirs.state, 'jobs', badStatus, 'job.json'), JSON.stringify({ ...finished(badStatus, 0), status: 'exploded' }));
  });

  it('localagents jobs --all --json: every readable record on stdout, each damaged one named on stderr', () => {
    const run = spawnSync('bash', ['-c', ULIMIT, process.execPath, BIN, '--config', dirs.config, 'jobs', '--all', '--json'], {
      env: { ...baseEnv(dirs), LOCALAGENTS_STATE_DIR: dirs.state, LOCALAGENTS_LOG: 'warn' },
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(run.status, run.stderr).toBe(0);
    const listed = (JSON.parse(run.stdout) as Array<{ id: string }>).map((j) => j.id);
    expect(listed).toEqual(ids);
    const file = (id: string): string => join(dirs.state, 'jobs', id, 'job.json');
    expect(run.stderr).toMatch(new RegExp(`damaged job record ${truncated}: ${file(truncated)}: \\S`));
    expect(run.stderr).toContain(`damaged job record ${badStatus}: ${file(badStatus)}: status: Invalid option`);
  });

  it('list_jobs over stdio: all 2,006 jobs and both damaged records', async () => {
    const transport = new StdioClientTransport({
      command: 'bash',
      args: ['-c', ULIMIT, process.execPath, BIN, '--config', dirs.config],
      cwd: dirs.repo,
      env: { ...baseEnv(dirs), LOCALAGENTS_STATE_DIR: dirs.state, LOCALAGENTS_LOG: 'warn' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'fd-limit', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.listTools();
      const result = (await client.callTool({ name: 'list_jobs', arguments: { limit: 10_000 } })) as CallToolResult;
      const listing = ok(result) as { jobs: Array<{ id: string }>; damaged: Array<{ id: string; file: string; problem: string }> };
      expect(listing.jobs.map((j) => j.id)).toEqual(ids);
      expect(listing.damaged.map((d) => d.id)).toEqual([truncated, badStatus]);
      expect(listing.damaged[1]).toEqual({ id: badStatus, file: join(dirs.state, 'jobs', badStatus, 'job.json'), problem: expect.stringContaining('status: Invalid option') as unknown });
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      expect(text).toContain(`${truncated}  damaged     ${join(dirs.state, 'jobs', truncated, 'job.json')}: `);
    } finally {
      await client.close();
    }
  });
});

describe('a clock set back a day while a job runs', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ hangBeforeHeaders: true }] });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await sim?.close();
  });

  it('list_jobs (newest 50) still shows the running job, though its id sorts before 60 finished ones', async () => {
    const dirs = makeDirs('la-clock-');
    const older = writeRecords(dirs.state, 60);
    const h = await startInProcess({ yaml: endpointYaml(sim.url), dirs });
    try {
      // A fake clock for this process only: Date runs on, a day behind; timers stay real.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(Date.now() - 86_400_000);
      const started = ok(await h.call('run_agent', { task: 'Take your time.', wait_s: 0 }));
      expect(String(started.id) < older[0]!).toBe(true);
      expect(await until(() => sim.requests.some((r) => r.path === '/v1/messages'), 60_000)).toBe(true);
      const listed = ok(await h.call('list_jobs', {})).jobs as Array<{ id: string; status: string }>;
      expect(listed.find((j) => j.id === started.id)).toMatchObject({ status: 'running' });
      expect(listed.filter((j) => j.status === 'succeeded').map((j) => j.id)).toEqual(older.slice(-50));
      const running = ok(await h.call('list_jobs', { include_finished: false })).jobs as Array<{ id: string }>;
      expect(running.map((j) => j.id)).toEqual([started.id]);
      vi.useRealTimers();
      expect(ok(await h.call('cancel_job', { job_id: started.id })).status).toBe('cancelled');
    } finally {
      vi.useRealTimers();
      await h.close();
    }
  });
});
