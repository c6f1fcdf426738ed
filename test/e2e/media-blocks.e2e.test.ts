/**
 * Images and PDFs with the real Claude Code CLI through the shim, against the
 * llama-server simulator of the pinned source (sep2026, strict Qwen template):
 * without vision the server refuses any image with HTTP 500 and drops
 * documents; through the shim the session reads both and the model's next
 * request carries the note and the PDF's text. With vision (the simulator's
 * --mmproj flavour: no vision model can be built on these machines) the image
 * passes untouched.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canon, prefixReuse } from '../../bench/parts/prefix-stability.js';
import { createShimServer } from '../../src/shim/server.js';
import { createRequestLog, type RequestLogEntry } from '../../src/shim/request-log/request-log.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { makeRepo } from '../helpers/git-repo.js';
import { makePdf, makePng } from '../helpers/media-files.js';
import { claudeEnv, runClaudeP } from './claude-cli.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

interface Rig {
  sim: Simulator;
  repo: string;
  home: string;
  baseUrl: string;
  requestsLog: string;
}

/** `strict`: the Qwen template's own checks, which refuse Claude Code's system messages before any image is looked at. */
async function rig(vision: boolean, strict = true): Promise<Rig> {
  const sim = await startSimulator({ flavor: 'llama.cpp', llamaBuild: 'sep2026', strictQwen: strict, vision });
  cleanups.push(() => sim.close());
  const home = mkdtempSync(join(tmpdir(), 'la-home-'));
  const repo = makeRepo();
  writeFileSync(join(repo, 'screenshot.png'), makePng(64, 48));
  writeFileSync(join(repo, 'spec.pdf'), makePdf(['Widget specification', 'The widget answers 42 to every question.']));
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const requestsLog = join(home, 'requests.jsonl');
  const log = createRequestLog(requestsLog, undefined, () => undefined);
  cleanups.push(() => log.close());
  const route = await shim.open({ jobId: 'e2e', endpoint: { name: 'gpu', base_url: sim.url, backend: 'llama.cpp' }, servedModel: sim.modelId, context: undefined, vision, log });
  sim.setScript([
    { toolUse: { name: 'Read', input: { file_path: join(repo, 'screenshot.png') } } },
    { toolUse: { name: 'Read', input: { file_path: join(repo, 'spec.pdf') } } },
    { text: 'Read both.' },
  ]);
  return { sim, repo, home, baseUrl: route.baseUrl, requestsLog };
}

const PROMPT = 'Look at screenshot.png, then read spec.pdf.';

/** The bodies the backend received for the conversation (not the SDK's one-token side requests). */
function mainLoop(sim: Simulator): Record<string, unknown>[] {
  return sim.requests
    .filter((q) => q.path === '/v1/messages' && q.status === 200)
    .map((q) => JSON.parse(q.bodyText) as Record<string, unknown>)
    .filter((b) => b.max_tokens !== 1);
}

interface ImageBlock {
  type: 'image';
  source: { type: string; media_type: string; data: string };
}

/** Every image block of a body, also inside tool results. */
function imagesIn(body: Record<string, unknown>): ImageBlock[] {
  const out: ImageBlock[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      if ((value as { type?: unknown }).type === 'image') out.push(value as ImageBlock);
      else Object.values(value).forEach(walk);
    }
  };
  walk(body.messages);
  return out;
}

describe('images and PDFs for a model server without vision', () => {
  it('a session that reads a PNG and a PDF succeeds; the next requests carry the note and the text and keep their prefix', async () => {
    const r = await rig(false);
    const run = await runClaudeP(PROMPT, r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId));
    expect(run.result).toMatchObject({ is_error: false, result: 'Read both.' });

    const bodies = mainLoop(r.sim);
    expect(bodies).toHaveLength(3);
    const [, afterImage, afterPdf] = bodies.map((b) => JSON.stringify(b));
    const note = `[image ${join(r.repo, 'screenshot.png')} (image/png, 64×48 px, `;
    expect(afterImage).toContain(note);
    expect(afterImage).toContain('this model server cannot see images');
    expect(afterPdf).toContain(note);
    expect(afterPdf).toContain('The widget answers 42 to every question.');
    expect(afterPdf).toContain(`[PDF ${join(r.repo, 'spec.pdf')} (`);
    for (const body of bodies) {
      expect(imagesIn(body)).toEqual([]);
      expect(JSON.stringify(body)).not.toContain('"type":"document"');
    }

    // Cache: each request starts with the whole previous prompt (100% prefix reuse).
    const prompts = bodies.map(canon);
    for (let i = 1; i < prompts.length; i++) expect(prefixReuse(prompts[i - 1] ?? '', prompts[i] ?? '').share).toBe(1);

    const log = readFileSync(r.requestsLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestLogEntry);
    const last = log.filter((e) => e.path === '/v1/messages' && e.status === 200).at(-1);
    expect(last?.media_replaced?.map((m) => [m.kind, m.outcome])).toEqual([['document', 'extracted'], ['image', 'described']]);
    expect(last?.rewrites).toContain('replaced 1 image(s) → note (no vision), 1 document(s) → text');
  }, 60_000);

  it('straight at the server the same session ends on the image error (what the shim prevents)', async () => {
    const r = await rig(false, false);
    const run = await runClaudeP(PROMPT, r.repo, claudeEnv(r.sim.url, r.home, join(r.home, 'c'), r.sim.modelId, { CLAUDE_CODE_MAX_RETRIES: '1' }));
    expect(run.result?.is_error).toBe(true);
    expect(run.result?.result).toContain('image input is not supported');
    expect(r.sim.requests.some((q) => q.status === 500)).toBe(true);
  }, 60_000);
});

describe('images for a model server with vision', () => {
  it('passes the image to the server byte for byte, as Claude Code sent it straight to the server', async () => {
    const direct = await rig(true, false);
    const straight = await runClaudeP(PROMPT, direct.repo, claudeEnv(direct.sim.url, direct.home, join(direct.home, 'c'), direct.sim.modelId));
    expect(straight.result).toMatchObject({ is_error: false });
    const sent = imagesIn(mainLoop(direct.sim).at(-1) ?? {});

    const r = await rig(true);
    const run = await runClaudeP(PROMPT, r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId));
    expect(run.result).toMatchObject({ is_error: false, result: 'Read both.' });
    const received = imagesIn(mainLoop(r.sim).at(-1) ?? {});
    expect(sent).toHaveLength(1);
    expect(received).toEqual(sent);
    expect(received[0]?.source.media_type).toBe('image/png');
    // The PDF still becomes text: no backend here reads document blocks.
    expect(JSON.stringify(mainLoop(r.sim).at(-1))).toContain('The widget answers 42 to every question.');
  }, 120_000);
});
