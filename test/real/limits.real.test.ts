/**
 * What a user meets at a real llama-server's limits, through the built localagents and the real Claude Code:
 * a prompt over the slot's context, a server with --api-key, a random-weights model writing long output that
 * job_status shows growing while the request is still open, and the server's output parser rejecting every answer.
 */
import { describe, expect, it } from 'vitest';
import { ok } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import type { LlamaServer } from './llama-server.js';
import { startTestServer, type TestServerOptions } from './server-for-test.js';
import { startLocalagents, type Localagents } from './mcp.js';
import { templateWithAnotherAssistantHeader } from './templates.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

async function server(options: TestServerOptions): Promise<LlamaServer> {
  const s = await startTestServer(options);
  cleanups.push(() => s.close());
  return s;
}

async function localagents(...args: Parameters<typeof startLocalagents>): Promise<Localagents> {
  const la = await startLocalagents(...args);
  cleanups.push(() => la.close());
  return la;
}

describe('a real llama-server at its limits', () => {
  it('a prompt over the slot context fails the job with "prompt is too long: N tokens > M maximum", the real numbers', async () => {
    const s = await server({ model: 'eos', parallel: 1, slotContext: 8192 });
    // Sandboxed, Claude Code's own estimate of the longer prompt already exceeds 8192 and it refuses before sending.
    const la = await localagents({ gpu: { url: s.url } }, {}, { unsandboxed: true });
    const job = await la.finish((await la.start({ task: 'Say hello.' })).id);
    expect(job.status).toBe('failed');
    const first = la.requests(job.id).find((r) => r.path === '/v1/messages');
    // The server's own words: "request (N tokens) exceeds the available context size (8192 tokens)…".
    const real = /request \((\d+) tokens\) exceeds the available context size \(8192 tokens\)/.exec(first?.original_error ?? '');
    expect(real, JSON.stringify(first)).not.toBeNull();
    const n = Number(real?.[1]);
    expect(n).toBeGreaterThan(8192);
    expect(first).toMatchObject({ status: 400, error: `prompt is too long: ${n} tokens > 8191 maximum` });
    // The job's error leads with the explanation of the server's error, then quotes the server's own words.
    expect(job.error?.startsWith("The prompt did not fit the model's context window")).toBe(true);
    expect(job.error).toContain(`request (${n} tokens) exceeds the available context size (8192 tokens)`);
  });

  it('--api-key: 401 without the key (the endpoint says how to fix it), a job succeeds with api_key_env', async () => {
    const s = await server({ model: 'eos', parallel: 1, slotContext: 65536, apiKey: 'k-real-test' });
    const noKey = await fetch(`${s.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });

    const without = await localagents({ gpu: { url: s.url } });
    const listing = ok(await without.mcp.call('list_models'));
    expect((listing.endpoints as Array<{ reason: string }>)[0]?.reason).toContain('the server needs an API key (HTTP 401)');

    const withKey = await localagents({ gpu: { url: s.url, apiKeyEnv: 'REAL_TEST_KEY' } }, { REAL_TEST_KEY: 'k-real-test' });
    const job = await withKey.finish((await withKey.start({ task: 'Say hello.' })).id);
    expect(job.status).toBe('succeeded');
  });

  it('long random output: job_status shows the open request generating, its output tokens growing between two calls', async () => {
    const s = await server({ model: 'random', parallel: 1, slotContext: 65536 });
    const la = await localagents({ gpu: { url: s.url } });
    const started = await la.start({ task: 'Write a long story.' });
    type InFlight = { request: number; phase: string; output_tokens: number };
    const openRequest = async (): Promise<InFlight | undefined> => {
      const status = ok(await la.mcp.call('jobs', { job_id: started.id }));
      return (status.in_flight as InFlight[] | undefined)?.[0];
    };
    let first: InFlight | undefined;
    const generating = async (): Promise<boolean> => {
      first = await openRequest();
      return first?.phase === 'generating' && first.output_tokens > 0;
    };
    expect(await until(generating, 240_000, 500)).toBe(true);
    await new Promise((r) => setTimeout(r, 3000));
    const second = await openRequest();
    expect(second).toMatchObject({ request: first?.request, phase: 'generating' });
    expect(second?.output_tokens).toBeGreaterThan(first?.output_tokens ?? Infinity);
    ok(await la.mcp.call('cancel_job', { job_id: started.id }));
    expect((await la.finish(started.id, 120)).status).toBe('cancelled');
  });

  it('the output parser rejects every answer: job_status and job_log say in words what happened and what to try', async () => {
    const s = await server({ model: 'eos', parallel: 1, slotContext: 65536, extraArgs: ['--chat-template-file', templateWithAnotherAssistantHeader()] });
    // One retry, not ten: Claude Code backs off for minutes before it gives up otherwise.
    const la = await localagents({ gpu: { url: s.url, env: { CLAUDE_CODE_MAX_RETRIES: '1' } } });
    const started = await la.start({ task: 'Say hello.' });
    type Explained = { status: number; source?: string; message: string; explanation: { kind: string; what: string; try: string[] } };
    let status: Record<string, unknown> = {};
    const parserError = async (): Promise<Explained | undefined> => {
      status = ok(await la.mcp.call('jobs', { job_id: started.id }));
      return (status.backend_errors as Explained[] | undefined)?.find((e) => e.explanation.kind === 'output_parser');
    };
    expect(await until(async () => (await parserError()) !== undefined, 120_000, 500), JSON.stringify(status)).toBe(true);
    const error = await parserError();
    // The server's own words, kept; then what they mean.
    expect(error?.message).toContain('The model produced output that does not match the expected peg-native format');
    expect(error?.explanation.what).toBe("The model's output did not follow its chat template's tool-call format, so the server's output parser gave up on the answer.");
    expect(error?.explanation.try.join(' ')).toContain('--chat-template');

    const log = ok(await la.mcp.call('jobs', { job_id: started.id, tail_lines: 60 })).transcript as string;
    expect(log).toMatch(/backend error on request \d+: .*does not match the expected peg-native format/);
    expect(log).toContain("The model's output did not follow its chat template's tool-call format");

    // When Claude Code gives up, the job's error leads with the explanation, then quotes the server.
    const job = await la.finish(started.id, 300);
    expect(job.status).toBe('failed');
    expect(job.error?.startsWith("The model's output did not follow its chat template's tool-call format")).toBe(true);
    expect(job.error).toContain('The model produced output that does not match the expected peg-native format');
  });
});
