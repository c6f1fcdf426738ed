/**
 * The chat-template matrix: every tool-capable template of the pinned llama.cpp source (template-matrix.ts says how
 * that is decided) on a real llama-server (`--jinja --chat-template-file`, the always-EOS tiny model), sent every
 * request of a recorded Claude Code session through the real shim, as Claude Code sent them. Each must be accepted.
 * The table of templates × outcome is docs/templates.md: this test renders it and fails when the file differs
 * (LOCALAGENTS_WRITE_DOCS=1 rewrites it).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { explainBackendError } from '../../src/shim/translate/error-catalogue.js';
import { createRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { sourceCommit } from './build-llama-server.js';
import { startTestServer } from './server-for-test.js';
import { recordedSession, type RecordedRequest } from './recorded-session.js';
import { DOC_PATH, passes, renderDoc, sourceTemplates, type StepResult, type TemplateFile, type TemplateResult } from './template-matrix.js';

/** Per-slot context: the largest prompt of the session on any template fits (the table lists each one's). */
const SLOT_CONTEXT = 24_576;
/** Two servers at a time: two cores, and each server mostly waits on the shim and the Jinja renderer. */
const PARALLEL = 2;
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']);

type Json = Record<string, unknown>;

const blocks = (body: Json): Json[] =>
  ((body.messages as Json[] | undefined) ?? []).flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []));

/** What a request holds that a template may refuse, read from the body itself (so the doc cannot claim more). */
function shapes(body: Json): string[] {
  const messages = (body.messages as Json[] | undefined) ?? [];
  const all = blocks(body);
  const inResults = all.flatMap((b) => (b.type === 'tool_result' && Array.isArray(b.content) ? (b.content as Json[]) : []));
  const text = JSON.stringify(messages);
  const out: string[] = [];
  const system = messages.filter((m) => m.role === 'system').length;
  if (system > 0) out.push(`${system} mid-conversation system message${system > 1 ? 's' : ''} (folded by the shim)`);
  const thinking = all.filter((b) => b.type === 'thinking' && typeof b.signature === 'string' && b.signature !== '').length;
  if (thinking > 0) out.push(`${thinking} thinking block${thinking > 1 ? 's' : ''} replayed with its signature`);
  const toolUses = all.filter((b) => b.type === 'tool_use').length;
  if (toolUses > 0) out.push(`${toolUses} tool use${toolUses > 1 ? 's' : ''} and result${toolUses > 1 ? 's' : ''}`);
  if (text.includes('CRITICAL: Respond with TEXT ONLY')) out.push("Claude Code's compaction request");
  if (text.includes('This session is being continued from a previous conversation')) out.push('the compaction summary');
  const images = [...all, ...inResults].filter((b) => b.type === 'image').length;
  if (images > 0) out.push(`${images} image in a tool result`);
  return out;
}

const stepName = (r: RecordedRequest): string => r.file.replace(/\.json$/, '');

interface Rig {
  readonly shim: ShimServer;
  readonly logDir: string;
}

/** The server's words from an error answer: the JSON body's message, or a stream's `event: error` data. */
function refusalOf(status: number, text: string): string | undefined {
  if (status === 200) {
    const error = /^event: error\ndata: (.*)$/m.exec(text);
    return error?.[1];
  }
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    return body.error?.message ?? text;
  } catch {
    return text;
  }
}

async function runTemplate(rig: Rig, template: TemplateFile, session: readonly RecordedRequest[]): Promise<TemplateResult> {
  const server = await startTestServer({ model: 'eos', parallel: 1, slotContext: SLOT_CONTEXT, extraArgs: ['--chat-template-file', template.path, '-t', '1'] });
  const logPath = join(rig.logDir, `${template.name}.jsonl`);
  const log = createRequestLog(logPath, undefined, () => undefined);
  try {
    const props = (await (await fetch(`${server.url}/props`)).json()) as { chat_template_caps?: { supports_tools?: boolean } };
    const route = await rig.shim.open({ jobId: template.name, endpoint: { name: 'gpu', base_url: server.url, backend: 'llama.cpp' }, servedModel: server.modelId, context: SLOT_CONTEXT, vision: false, log });
    const steps: StepResult[] = [];
    try {
      for (const request of session) {
        const headers = Object.fromEntries(Object.entries(request.headers).filter(([k]) => !SKIPPED_HEADERS.has(k)));
        const send = async (): Promise<{ status: number; text: string }> => {
          const res = await fetch(`${route.baseUrl}${request.url}`, { method: 'POST', headers, body: JSON.stringify(request.body) });
          return { status: res.status, text: await res.text() };
        };
        let answer = await send();
        // A pooled connection the server had just closed: the shim answers 503 and Claude Code resends; so do we, once.
        if (answer.status === 503 && answer.text.includes('closed the connection without answering')) answer = await send();
        const refusal = refusalOf(answer.status, answer.text);
        const kind = refusal === undefined ? undefined : explainBackendError({ status: answer.status, text: refusal, source: answer.status === 200 ? 'stream' : 'http', path: '/v1/messages', backend: 'llama.cpp' }).kind;
        steps.push({ step: stepName(request), status: answer.status, ...(refusal === undefined ? {} : { refusal, kind }) });
      }
    } finally {
      route.close();
    }
    await log.close();
    const prompts = readFileSync(logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { usage?: { input_tokens?: number; cache_read_input_tokens?: number } });
    const maxPromptTokens = Math.max(0, ...prompts.map((p) => (p.usage?.input_tokens ?? 0) + (p.usage?.cache_read_input_tokens ?? 0)));
    return { template: template.name, serverSaysTools: props.chat_template_caps?.supports_tools === true, steps, maxPromptTokens };
  } finally {
    await server.close();
  }
}

/** Runs every template, PARALLEL at a time, in a stable order of results. */
async function runAll(rig: Rig, templates: readonly TemplateFile[], session: readonly RecordedRequest[]): Promise<TemplateResult[]> {
  const results = new Array<TemplateResult>(templates.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < templates.length; i = next++) {
      const template = templates[i];
      if (template !== undefined) results[i] = await runTemplate(rig, template, session);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

describe('every tool-capable chat template of the pinned llama.cpp source takes a recorded Claude Code session through the shim', () => {
  const source = inject('llamaSource');
  const templates = sourceTemplates(source);
  // LOCALAGENTS_TEMPLATES (comma-separated names) runs a few while working on one; the doc is checked on full runs only.
  const only = process.env.LOCALAGENTS_TEMPLATES?.split(',').filter(Boolean);
  const toolTemplates = templates.filter((t) => t.tools && (only === undefined || only.includes(t.name)));
  const session = recordedSession();
  // The requests after the picture was read carry it in their history; they are the separate test below.
  const firstImage = session.findIndex((r) => shapes(r.body).some((s) => s.includes('image')));
  const beforeImage = firstImage < 0 ? session : session.slice(0, firstImage);
  const withImage = firstImage < 0 ? [] : session.slice(firstImage);
  let rig: Rig;
  let results: TemplateResult[] = [];
  let seconds = 0;

  beforeAll(async () => {
    rig = { shim: createShimServer(silentLogger), logDir: mkdtempSync(join(tmpdir(), 'i25b-templates-')) };
    const started = Date.now();
    results = await runAll(rig, toolTemplates, beforeImage);
    seconds = (Date.now() - started) / 1000;
    process.stderr.write(`[template matrix] ${toolTemplates.length} templates × ${beforeImage.length} requests in ${seconds.toFixed(1)} s\n`);
  }, 1_200_000);

  afterAll(async () => {
    await rig?.shim.close();
  });

  it('the recorded session holds every shape the matrix claims to test', () => {
    const held = beforeImage.flatMap((r) => shapes(r.body)).join('\n');
    for (const shape of ['mid-conversation system message', 'thinking block', 'tool use', 'compaction request', 'compaction summary']) expect(held).toContain(shape);
    expect(withImage.flatMap((r) => shapes(r.body)).join('\n')).toContain('image in a tool result');
    // Most of the source's templates render tools; the rule did not silently match nothing.
    expect(templates.filter((t) => t.tools).length).toBeGreaterThan(50);
  });

  it('every tool-capable template accepts every request, or refuses only where the error catalogue says which template to use', () => {
    const refused = results.filter((r) => !passes(r)).map((r) => ({ template: r.template, steps: r.steps.filter((s) => s.status !== 200 || s.refusal !== undefined) }));
    expect(refused).toEqual([]);
    expect(results.map((r) => r.template)).toEqual(toolTemplates.map((t) => t.name));
  });

  it("llama.cpp's own capability reading agrees: every template the rule picks, the server says supports tools", () => {
    expect(results.filter((r) => !r.serverSaysTools).map((r) => r.template)).toEqual([]);
  });

  it.skipIf(only !== undefined)('docs/templates.md is the table of this run', () => {
    const steps = beforeImage.map((r) => `\`${stepName(r)}\`: ${shapes(r.body).join(', ')}`);
    const doc = renderDoc({ commit: sourceCommit(source), steps, templates, results });
    if (process.env.LOCALAGENTS_WRITE_DOCS === '1') writeFileSync(DOC_PATH, doc);
    expect(readFileSync(DOC_PATH, 'utf8'), 'docs/templates.md is stale: run LOCALAGENTS_WRITE_DOCS=1 npm run test:real').toBe(doc);
  });

  // The server has no vision (no --mmproj): without the shim's note every one of these is HTTP 500 "image input is not supported".
  it('after the picture was read: every tool-capable template accepts the requests that carry it, the shim having replaced it with words', async () => {
    const after = await runAll(rig, toolTemplates, withImage);
    expect(after.filter((r) => !passes(r)).map((r) => ({ template: r.template, steps: r.steps }))).toEqual([]);
  }, 1_200_000);
});
