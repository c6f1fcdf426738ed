/**
 * A verify command on a real llama-server whose tiny model always answers nothing, so it never fixes anything:
 * the job ends failed after verify_attempts, and each failed check before the last went back to the model as a new
 * request the server received (recorded byte for byte by test/real/turn-relay.ts, which plays no tool calls here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlamaServer } from './llama-server.js';
import { startLocalagents, type Localagents } from './mcp.js';
import { startTestServer } from './server-for-test.js';
import { startTurnRelay, type TurnRelay } from './turn-relay.js';

describe('verify on a real llama-server', () => {
  let server: LlamaServer;
  let relay: TurnRelay;
  let la: Localagents;

  beforeAll(async () => {
    server = await startTestServer({ model: 'eos', parallel: 1, slotContext: 65536 });
    relay = await startTurnRelay(server.url);
    la = await startLocalagents({ gpu: { url: relay.url } });
  });

  afterAll(async () => {
    await la?.close();
    await relay?.close();
    await server?.close();
  });

  it('a check that cannot pass ends the job failed after verify_attempts; each failure reached the server as a new request', async () => {
    const started = await la.start({ task: 'Make the check pass.', verify: 'echo "assertion failed: widget-7 is $((6*7))"; exit 1', verify_attempts: 3 });
    const job = await la.finish(started.id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/failed 3 times \(of 3 attempts; last: exit status 1\); last output: assertion failed: widget-7 is 42/);
    const verification = la.record(job.id).verification as { passed: boolean; attempts: Array<{ exit_code: number }> };
    expect(verification.passed).toBe(false);
    expect(verification.attempts.map((a) => a.exit_code)).toEqual([1, 1, 1]);

    // Main-loop requests the server got (the SDK's one-token probes left out), in order.
    const main = relay.requests.filter((r) => r.path === '/v1/messages' && (JSON.parse(r.body) as { max_tokens?: number }).max_tokens !== 1);
    const firstWith = (text: string): number => main.findIndex((r) => r.body.includes(text));
    const first = firstWith('check 1 of 3');
    const second = firstWith('check 2 of 3');
    expect(first).toBeGreaterThan(0); // after the request the model first tried to stop on
    expect(second).toBeGreaterThan(first);
    for (const i of [first, second]) {
      expect(main[i]?.body).toContain('assertion failed: widget-7 is 42');
      expect(main[i]?.status).toBe(200);
    }
    // The last failure ends the job: no request carries a third check's feedback.
    expect(firstWith('check 3 of 3')).toBe(-1);
  });
});
