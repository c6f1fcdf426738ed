/**
 * The MCP server process as Claude Code runs it: SIGTERM closes it cleanly
 * (running jobs become `interrupted`, their Claude Code processes end), and
 * --dashboard serves the dashboard with its URL in an owner-only file.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type E2EDirs } from './harness.js';
import { processAlive, until } from '../helpers/processes.js';

describe('localagents MCP server process', () => {
  let dirs: E2EDirs;
  let sim: Simulator;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: 'never', delayMs: 600_000 }] });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('on SIGTERM records running jobs as interrupted and stops their Claude Code processes', async () => {
    const mcp = await connect(dirs);
    const started = ok(await mcp.call('run_agent', { wait_s: 0, task: 'Wait forever.' }));
    const recordPath = join(dirs.state, 'jobs', String(started.id), 'job.json');
    const record = (): { status: string; claude_pid?: number; error?: string } => JSON.parse(readFileSync(recordPath, 'utf8')) as { status: string; claude_pid?: number };
    // A cold Claude Code start on a loaded 2-core CI machine has taken over 15 s; say what was seen when it times out.
    const claudeRequesting = await until(() => record().claude_pid !== undefined && sim.stats.inFlight > 0, 60_000, 100);
    expect(claudeRequesting, `record ${JSON.stringify(record())}, simulator ${JSON.stringify(sim.stats)}`).toBe(true);
    const claudePid = record().claude_pid!;
    process.kill(mcp.transport.pid!, 'SIGTERM');
    expect(await until(() => record().status !== 'running', 15_000)).toBe(true);
    expect(record().status).toBe('interrupted');
    // The record is neutral (a person reads it too); the MCP view adds the resume_job call.
    expect(record().error).toContain('it can be resumed');
    expect(await until(() => !processAlive(claudePid), 5000)).toBe(true);
    await mcp.close().catch(() => undefined);
  }, 120_000);

  it('--dashboard serves the dashboard and leaves its URL in an owner-only file', async () => {
    const mcp = await connect(dirs, {}, ['--dashboard']);
    try {
      const file = join(dirs.state, 'dashboard-url');
      const written = (): boolean => {
        try {
          return readFileSync(file, 'utf8').includes('token=');
        } catch {
          return false;
        }
      };
      expect(await until(written, 15_000)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const url = readFileSync(file, 'utf8').trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
      const jobs = await fetch(new URL(`/api/jobs?token=${new URL(url).searchParams.get('token')}`, url));
      expect(jobs.status).toBe(200);
      const denied = await fetch(new URL('/api/jobs?token=wrong', url));
      expect(denied.status).toBe(403);
    } finally {
      await mcp.close();
    }
  });
});
