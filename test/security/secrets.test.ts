/**
 * An endpoint's API key goes to its backend and nowhere else: not into any
 * file a job writes (record, transcript, events, requests, the full request
 * dump), not into Claude Code's own files, not into a log line, a tool result
 * or the dashboard, even when the backend echoes it in an error.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, startInProcess, type InProcess } from '../reliability/in-process.js';

const KEY = `sk-la-${randomBytes(12).toString('hex')}`;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

describe('API keys stay secret', () => {
  let sim: Simulator;
  let h: InProcess;
  const results: unknown[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, apiKey: KEY });
    h = await startInProcess({ yaml: endpointYaml(sim.url, { extra: `    api_key: ${KEY}`, defaults: '  dump_requests: true' }) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('a job with a full request dump, and a backend that echoes the key in an error, writes the key nowhere', async () => {
    let echoed = false;
    let echoedInStream = false;
    sim.setScript((req) => {
      if (req.assistantTurns === 0) return { toolUse: { name: 'Bash', input: { command: 'echo hi', description: 'Say hi' } } };
      if (!echoed) {
        echoed = true;
        // A misbehaving proxy that quotes the request's credentials back.
        return { error: { status: 500, body: { error: { code: 500, type: 'server_error', message: `upstream refused ${req.headers.authorization ?? ''} (x-api-key ${req.headers['x-api-key'] ?? ''})` } } } };
      }
      if (!echoedInStream) {
        echoedInStream = true;
        // The same, inside a stream that already started: llama.cpp's mid-stream `event: error`.
        return { text: 'partial', streamError: { message: `stream refused for ${req.headers['x-api-key'] ?? ''}` } };
      }
      return { text: 'All done.' };
    });
    const record = ok(await h.call('run_agent', { task: 'Run echo hi, then say all done.', wait_s: 60 }));
    results.push(record);
    expect(record).toMatchObject({ status: 'succeeded', result: 'All done.' });
    const id = String(record.id);
    // The key was really in play: the backend got it on every request.
    const toBackend = sim.requests.filter((r) => r.path === '/v1/messages');
    expect(toBackend.length).toBeGreaterThanOrEqual(3);
    for (const r of toBackend) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);

    for (const [name, args] of [
      ['jobs', { job_id: id }],
      ['wait_job', { job_id: id, timeout_s: 1 }],
      ['jobs', { job_id: id, tail_lines: 500 }],
      ['jobs', {}],
      ['list_models', {}],
    ] as const) {
      results.push(await h.call(name, args));
    }
    const dashboard = await startDashboard(h.app, { log: silentLogger });
    try {
      for (const path of ['/api/jobs', '/api/endpoints', `/api/jobs/${id}`, `/api/jobs/${id}/requests`]) {
        const res = await fetch(`${new URL(dashboard.url).origin}${path}?token=${dashboard.token}`);
        expect(res.status).toBe(200);
        results.push(await res.text());
      }
    } finally {
      await dashboard.close();
    }

    const jobFiles = filesUnder(join(h.dirs.state, 'jobs', id));
    expect(jobFiles.map((f) => f.slice(f.lastIndexOf('/') + 1)).sort()).toEqual(['caller.jsonl', 'events.jsonl', 'job.json', 'requests.jsonl', 'requests_full.jsonl', 'task.txt', 'transcript.txt']);
    // Every file the job, the server and Claude Code wrote, except the models.yaml the user wrote the key into.
    const written = [...filesUnder(h.dirs.state), ...filesUnder(h.dirs.claudeConfig), ...filesUnder(h.dirs.repo).filter((f) => !f.includes('/.git/'))];
    expect(written.length).toBeGreaterThan(6);
    for (const file of written) {
      if (statSync(file).size > 50_000_000) continue;
      expect([file, readFileSync(file, 'latin1').includes(KEY)]).toEqual([file, false]);
    }
    for (const result of results) expect(JSON.stringify(result)).not.toContain(KEY);
    for (const line of h.logLines) expect(line).not.toContain(KEY);
    expect(echoedInStream).toBe(true);
    // The echo itself did reach the record, with the key blanked out.
    expect(readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8')).toContain('upstream refused Bearer [redacted]');
  });
});
