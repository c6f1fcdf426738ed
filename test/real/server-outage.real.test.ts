/**
 * Issue 26 on a real llama-server: the server is SIGKILLed under a running job and started again on the same
 * port 60 s later (longer than Claude Code's own retries would carry a job with CLAUDE_CODE_MAX_RETRIES=2);
 * the shim holds the job's requests meanwhile and the job succeeds. The built localagents over stdio, the
 * real Claude Code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { LlamaServer } from './llama-server.js';
import { startTestServer } from './server-for-test.js';
import { startLocalagents, type Localagents } from './mcp.js';

const SLOT_CONTEXT = 65536;

describe('a real llama-server killed under a running job and started again 60 s later', () => {
  let server: LlamaServer | undefined;
  let la: Localagents | undefined;

  afterAll(async () => {
    await la?.close();
    await server?.close();
  });

  it('the job waits for it and succeeds; its record keeps the outage', async () => {
    server = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT });
    la = await startLocalagents({ gpu: { url: server.url, env: { CLAUDE_CODE_MAX_RETRIES: '2' } } }, {}, { unsandboxed: true });
    const started = await la.start({ task: 'Say hello.' });
    expect(started.status).toBe('running');
    const killedAt = Date.now();
    await server.kill();
    await new Promise((r) => setTimeout(r, 60_000));
    server = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT, port: server.port });
    const job = await la.finish(started.id, 600);
    expect(job.status).toBe('succeeded');
    const outages = la.record(job.id).outages as Array<{ started_at: string; ended_at: string; saw: string[]; outcome: string }>;
    expect(outages).toHaveLength(1);
    expect(outages[0]).toMatchObject({ outcome: 'served again' });
    expect(outages[0]!.saw[0]).toMatch(/^is down \(host is up, nothing listens on 127\.0\.0\.1:\d+/);
    expect(Date.parse(outages[0]!.ended_at) - killedAt).toBeGreaterThan(55_000);
    const held = la.requests(job.id).find((r) => r.status === 200 && (r as { rewrites?: string[] }).rewrites?.some((w) => w.startsWith('held ')));
    expect(held).toBeDefined();
  });
});
