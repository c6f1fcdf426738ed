/**
 * A slow local model, watched while it works and explained when it fails: the
 * real Claude Code binary through the real shim to the simulator, job_status
 * read through the official MCP client while requests are open, at the
 * thresholds users get. The 60-second silence flag is checked on the live view
 * itself (live-requests.test.ts): here it would make a 60-second test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { ollamaError } from '../sim/ollama-stream.js';
import { ok, serverOnSimulator, textOf, until, type InProcess } from '../reliability/in-process.js';
import { MODEL_WORDS } from '../helpers/model-words.js';

const PEG = 'The model produced output that does not match the expected peg-native format';
const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const transcriptOf = (h: InProcess, id: string): string => readFileSync(join(h.dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');

// At once: each test waits on a paced simulator or a Claude Code session, and shares nothing with the others.
describe.concurrent('live progress and backend errors of a running job', () => {
  it('job_status shows the open request generating with a growing count, then the in-stream parser error in words', async ({ onTestFinished }) => {
    const { h } = await serverOnSimulator({ flavor: 'llama.cpp', strictQwen: true, script: [{ text: words(160), tokenDelayMs: 12, streamError: { message: PEG } }] }, onTestFinished, { retries: 1 });
    const id = String(ok(await h.call('run_agent', { task: 'Write a long answer.', wait_s: 0 })).id);

    const counts: number[] = [];
    let text = '';
    await until(async () => {
      const result = await h.call('jobs', { job_id: id });
      const record = ok(result) as unknown as JobRecord;
      const open = record.in_flight?.[0];
      if (open?.phase === 'generating') {
        if (counts.at(-1) !== open.output_tokens) counts.push(open.output_tokens);
        text = textOf(result);
      }
      return counts.length >= 3 || record.status !== 'running';
    }, 60_000, 150);
    expect(counts.length, `output_tokens seen: ${counts.join(', ')}`).toBeGreaterThanOrEqual(2);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(text).toMatch(/request \d+: generating for \d+ s, prompt [\d,k]+ tokens \([\d,k]+ cached\), output ~[\d,]+ tokens/);

    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 110 })) as unknown as JobRecord;
    expect(done.status).toBe('failed');
    expect(done.in_flight).toBeUndefined();
    // The error leads with the cause in words, not with what Claude Code said about it.
    expect(done.error).toMatch(/^The model's output did not follow its chat template's tool-call format/);
    expect(done.error).toContain('peg-native');
    const streamed = done.backend_errors?.find((e) => e.source === 'stream');
    expect(streamed).toMatchObject({ status: 200, explanation: { kind: 'output_parser' } });
    expect(streamed?.message).toContain(PEG);
    expect(streamed?.request).toBe(1);
    const log = textOf(await h.call('jobs', { job_id: id, tail_lines: 60 }));
    expect(log).toContain('backend error on request 1: the server sent an error inside its HTTP 200 stream');
    expect(log).toContain("The model's output did not follow its chat template's tool-call format");
    const status = textOf(await h.call('jobs', { job_id: id }));
    expect(status).toContain('last backend error');
  }, 150_000);

  it('job_status shows how much of a long prompt llama.cpp has read so far, from its /slots', async ({ onTestFinished }) => {
    const { h } = await serverOnSimulator({ flavor: 'llama.cpp', strictQwen: true, prefillMsPerToken: 0.8, script: [{ text: 'Done.' }] }, onTestFinished);
    const id = String(ok(await h.call('run_agent', { task: 'Say done.', wait_s: 0 })).id);
    const reads: number[] = [];
    let text = '';
    await until(async () => {
      const result = await h.call('jobs', { job_id: id });
      const record = ok(result) as unknown as JobRecord;
      const reading = record.in_flight?.find((r) => r.phase === 'reading the prompt' && r.prompt_read_tokens !== undefined);
      if (reading?.prompt_read_tokens !== undefined && reads.at(-1) !== reading.prompt_read_tokens) {
        reads.push(reading.prompt_read_tokens);
        text = textOf(result);
      }
      return reads.length >= 3 || record.status !== 'running';
    }, 60_000, 150);
    expect(reads.length, `prompt_read_tokens seen: ${reads.join(', ')}`).toBeGreaterThanOrEqual(2);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    // No byte on the stream, but the server's count shows it is working.
    expect(text).toMatch(/request \d+: reading the prompt for \d+ s, [\d,k]+ prompt tokens read \([\d,k]+ cached\)/);
    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 110 })) as unknown as JobRecord;
    expect(done.status).toBe('succeeded');
  }, 150_000);

  it('a vLLM started without tool calling: the job fails at once, its error says which flags to restart vLLM with', async ({ onTestFinished }) => {
    const { h } = await serverOnSimulator({ flavor: 'vllm', vllmToolParser: false }, onTestFinished, { extra: '    backend: vllm' });
    const id = String(ok(await h.call('run_agent', { task: 'Say hello.', wait_s: 0 })).id);
    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 110 })) as unknown as JobRecord;
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^vLLM refused the request before the model ran: it was started without tool calling/);
    expect(done.error).toContain('--enable-auto-tool-choice --tool-call-parser');
    expect(done.backend_errors?.[0]).toMatchObject({ status: 400, source: 'http', explanation: { kind: 'vllm_tool_choice' } });
    expect(done.backend_errors?.[0]?.message).toContain('tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
  }, 150_000);

  it('an Ollama whose renderer refuses the conversation: the job fails at once, its error gives fixes Ollama has', async ({ onTestFinished }) => {
    const { h } = await serverOnSimulator({ flavor: 'ollama', script: [{ error: { status: 500, body: ollamaError(500, 'system message must be at the beginning') } }] }, onTestFinished, { extra: '    backend: ollama' });
    const id = String(ok(await h.call('run_agent', { task: 'Say hello.', wait_s: 0 })).id);
    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 110 })) as unknown as JobRecord;
    expect(done.status).toBe('failed');
    expect(done.backend_errors?.[0]).toMatchObject({ status: 500, source: 'http', explanation: { kind: 'template' } });
    expect(done.error).toMatch(/^The model's chat template refused the conversation/);
    expect(done.error).toContain('Modelfile');
    // Not a word of llama.cpp's or vLLM's flags: Ollama has none of them.
    expect(done.error).not.toMatch(/--chat-template|--jinja/);
    expect(transcriptOf(h, id)).not.toMatch(/--chat-template|--jinja/);
  }, 150_000);

  it('flags an answer running far past the usual length, in job_status while it streams and in the transcript', async ({ onTestFinished }) => {
    const { h } = await serverOnSimulator({
      flavor: 'llama.cpp',
      strictQwen: true,
      script: [
        { toolUse: { name: 'Bash', input: { command: 'true', description: 'no-op' } } },
        // ~5,600 tokens: past 4,000 and past 4× the tool call's turn, with no tool call.
        { text: words(2600), tokenDelayMs: 1 },
        { text: 'Done.' },
      ],
    }, onTestFinished);
    const id = String(ok(await h.call('run_agent', { task: 'Run a no-op, then explain.', wait_s: 0 })).id);
    const flags = new Map<string, string>();
    await until(async () => {
      const record = ok(await h.call('jobs', { job_id: id })) as unknown as JobRecord;
      for (const r of record.in_flight ?? []) for (const f of r.flags) flags.set(f.kind, f.message);
      return flags.has('runaway') || record.status !== 'running';
    }, 60_000, 100);
    expect(flags.get('runaway')).toMatch(/^possible runaway: [\d,]+ output tokens with no tool call, over 4× the longest earlier turn of this job \([\d,]+\); cancelling the job stops it if it is not useful$/);
    expect(flags.has('silent')).toBe(false);

    const done = ok(await h.call('wait_job', { job_id: id, timeout_s: 110 })) as unknown as JobRecord;
    expect(done.status).toBe('succeeded');
    const transcript = transcriptOf(h, id);
    expect(transcript).toMatch(/request 2: possible runaway: [\d,]+ output tokens with no tool call, over 4× the longest earlier turn of this job/);
    // The flags are shown to people too (run, log -f, the dashboard): no MCP tool names.
    const flagLines = transcript.split('\n').filter((l) => /possible runaway|no byte from the server/.test(l));
    expect(flagLines).toHaveLength(1);
    for (const line of flagLines) expect(line).not.toMatch(MODEL_WORDS);
  }, 150_000);
});
