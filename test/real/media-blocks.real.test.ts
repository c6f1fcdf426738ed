/**
 * Images and PDFs on the real llama-server of the pinned source (tiny model, no --mmproj, the real Qwen3.5
 * template): its /props says it has no vision, it refuses an image with HTTP 500, and a delegated session that
 * reads a PNG and a PDF through localagents succeeds, the requests after each read carrying the note and the
 * PDF's text. The tiny model cannot choose a tool, so test/real/turn-relay.ts plays its two Read calls while
 * the real server judges every request. (The side with vision runs on the simulator's --mmproj flavour,
 * test/e2e/media-blocks.e2e.test.ts: no vision model can be built on these machines.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canon } from '../../bench/parts/prefix-stability.js';
import { makePdf, makePng } from '../helpers/media-files.js';
import type { LlamaServer } from './llama-server.js';
import { startTestServer } from './server-for-test.js';
import { startLocalagents, type Localagents } from './mcp.js';
import { startTurnRelay, type TurnRelay } from './turn-relay.js';

/** Characters that close a canon() prompt after its content: 4, and 2 more when its last block is a tool result with a content list. */
function closing(body: Record<string, unknown> | undefined): number {
  const messages = Array.isArray(body?.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  const content = messages.at(-1)?.content;
  const last = Array.isArray(content) ? (content.at(-1) as { type?: unknown; content?: unknown } | undefined) : undefined;
  return last?.type === 'tool_result' && Array.isArray(last.content) ? 6 : 4;
}

describe('images and PDFs on a real llama-server without vision', () => {
  let server: LlamaServer;
  let relay: TurnRelay;
  let la: Localagents;

  beforeAll(async () => {
    server = await startTestServer({ model: 'eos', parallel: 1, slotContext: 65536 });
    relay = await startTurnRelay(server.url);
    la = await startLocalagents({ gpu: { url: relay.url } });
    const repo = la.dirs.repo;
    writeFileSync(join(repo, 'screenshot.png'), makePng(64, 48));
    writeFileSync(join(repo, 'spec.pdf'), makePdf(['Widget specification', 'The widget answers 42 to every question.']));
    relay.play([
      { name: 'Read', input: { file_path: join(repo, 'screenshot.png') } },
      { name: 'Read', input: { file_path: join(repo, 'spec.pdf') } },
    ]);
  });

  afterAll(async () => {
    await la?.close();
    await relay?.close();
    await server?.close();
  });

  it('the real server says it has no vision and refuses an image with HTTP 500', async () => {
    const props = (await (await fetch(`${server.url}/props`)).json()) as { modalities?: unknown };
    expect(props.modalities).toEqual({ vision: false, video: false, audio: false });
    const png = makePng(8, 8).toString('base64');
    const answer = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: server.modelId, max_tokens: 8, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }, { type: 'text', text: 'what is this?' }] }] }),
    });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toContain('image input is not supported');
  });

  it('a session that reads a PNG and a PDF succeeds; the server accepts every request and the next ones carry the note and the text', async () => {
    const job = await la.finish((await la.start({ task: 'Look at screenshot.png, then read spec.pdf.' })).id);
    expect(job.status).toBe('succeeded');

    const main = relay.requests.filter((r) => r.path === '/v1/messages').map((r) => ({ ...r, json: JSON.parse(r.body) as Record<string, unknown> })).filter((r) => r.json.max_tokens !== 1);
    // Three turns, and one more: Claude Code asks again after the tiny model's empty final answer.
    expect(main.length).toBeGreaterThanOrEqual(3);
    for (const r of main) expect(r.status).toBe(200);
    const [, afterImage, afterPdf] = main.map((r) => r.body);
    const note = `[image ${join(la.dirs.repo, 'screenshot.png')} (image/png, 64×48 px, `;
    expect(afterImage).toContain(note);
    expect(afterPdf).toContain(note);
    expect(afterPdf).toContain('The widget answers 42 to every question.');
    for (const r of main) {
      expect(r.body).not.toContain('"type":"image"');
      expect(r.body).not.toContain('"type":"document"');
    }
    // Each request starts with the whole previous prompt, to the last character of its content: everything but what
    // closes it. Claude Code appends the next turn's messages (after `]}]}`: the last message's content, that message,
    // the messages, the object), or, after the tiny model's empty answer, a reminder ("Your previous response had no
    // visible output") to the same user message, which tool-turn-text.ts moves into that message's last tool result,
    // so it lands inside the result's content (after two more characters, `]}`). Rendered, that is the same point:
    // the end of the tool message's text, before its closing tag and the generation prompt the server reads anew
    // every turn.
    const prompts = main.map((r) => canon(r.json));
    for (let i = 1; i < prompts.length; i++) {
      const prev = prompts[i - 1] ?? '';
      expect(prompts[i]?.startsWith(prev.slice(0, -closing(main[i - 1]?.json)))).toBe(true);
    }

    expect(la.record(job.id).media_replaced).toEqual({ images: 1, documents_extracted: 1, documents_failed: 0 });
  });
});
