/**
 * The shim in front of vLLM, with a real Claude Code request body: vLLM answers
 * 500 when prompt + max_tokens exceeds max_model_len, so the shim counts the
 * prompt and lowers max_tokens; a prompt that cannot fit at all gets the
 * "prompt is too long" answer Claude Code compacts on, without reaching vLLM.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import { createShimServer } from '../../src/shim/server.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { capturedBody } from './rewrite/fixtures.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function route(context: number): Promise<{ sim: Simulator; url: string; log: RequestLogEntry[] }> {
  const sim = await startSimulator({ flavor: 'vllm', modelId: 'glm-5.3', context, script: [{ text: 'fits' }] });
  cleanups.push(() => sim.close());
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const log: RequestLogEntry[] = [];
  const open = await shim.open({
    jobId: 'j',
    endpoint: { name: 'rack', base_url: sim.url, backend: 'vllm' },
    servedModel: 'glm-5.3',
    context,
    log: { dumping: false, write: (e) => log.push(e), writeFull: () => undefined, close: () => Promise.resolve() },
  });
  return { sim, url: open.baseUrl, log };
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('the shim in front of vLLM', () => {
  // A real Claude Code request (~12k tokens as the simulator counts them), with its default max_tokens 32000.
  const body = { ...capturedBody('session-write-bash-3-turns', 'req-001.json'), max_tokens: 32_000, stream: false };

  it('lowers max_tokens so prompt + output fits max_model_len, and vLLM answers', async () => {
    const r = await route(32_768);
    const direct = await post(r.sim.url, { ...body, model: 'glm-5.3' });
    expect(direct.status).toBe(500);
    expect(direct.text).toContain("This model's maximum context length is 32768 tokens");

    const through = await post(r.url, body);
    expect(through.status).toBe(200);
    const sent = r.sim.requests.filter((q) => q.path === '/v1/messages').at(-1)!;
    const forwarded = sent.json as { model: string; max_tokens: number };
    expect(forwarded.model).toBe('glm-5.3');
    expect(forwarded.max_tokens + (sent.promptTokens ?? 0)).toBeLessThanOrEqual(32_768);
    expect(r.sim.requests.some((q) => q.path === '/v1/messages/count_tokens')).toBe(true);
    expect(r.log.at(-1)?.rewrites).toContain(`max_tokens lowered from 32000 to fit 32768 (counted prompt)`);
  });

  it('answers "prompt is too long" itself when the prompt alone does not fit', async () => {
    const r = await route(8_192);
    const through = await post(r.url, body);
    expect(through.status).toBe(400);
    expect(JSON.parse(through.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long: \d+ tokens > \d+ maximum$/) as unknown } });
    expect(r.sim.requests.filter((q) => q.path === '/v1/messages')).toHaveLength(0);
  });
});
