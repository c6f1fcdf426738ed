/**
 * Part 1 (f): requests that carry media through the shim, next to the same bodies sent straight to the stub. A
 * captured Claude Code body whose last tool result is a Read of a several-MB PNG (no vision: the shim replaces it by
 * a note; vision: the bytes pass untouched) or of a PDF (the shim puts its text in its place: first sight, with the
 * extraction, and again, from the per-content cache a session's later turns hit). Small JSON reply.
 */
import { makePdf, makePng } from '../../test/helpers/media-files.js';
import { allCapturedRequests } from '../lib/fixtures.js';
import { postMessages, type Target } from '../lib/http-client.js';
import type { Table } from '../lib/report.js';
import { formatSpread, percentile, spread } from '../lib/stats.js';
import type { ShimRig } from './shim-rig.js';

type Block = Record<string, unknown>;

/** A captured body with one more turn: a Read whose result is `block`. */
function withRead(base: Record<string, unknown>, path: string, block: Block): Buffer {
  const messages = Array.isArray(base.messages) ? [...(base.messages as unknown[])] : [];
  messages.push(
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_bench_read', name: 'Read', input: { file_path: path } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_bench_read', content: [block] }] },
  );
  return Buffer.from(JSON.stringify({ ...base, messages, stream: false }));
}

function imageBlock(png: Buffer): Block {
  return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } };
}

function pdfBlock(pdf: Buffer): Block {
  return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') } };
}

/** `pages` pages of 40 lines each; `seed` makes another PDF with the same shape (a cache miss). */
function pdf(pages: number, seed: number): Buffer {
  return makePdf(Array.from({ length: pages }, (_, p) => Array.from({ length: 40 }, (_, l) => `Document ${seed}, page ${p + 1}, line ${l + 1}: the widget answers 42.`).join('\n')));
}

async function timeMany(target: Target, headers: Readonly<Record<string, string>>, bodies: readonly Buffer[]): Promise<number[]> {
  const out: number[] = [];
  for (const body of bodies) {
    const s = await postMessages(target, headers, body);
    if (s.status !== 200) throw new Error(`${target.name}: HTTP ${s.status}`);
    out.push(s.total);
  }
  return out;
}

export async function measureMedia(rig: ShimRig, scale: number): Promise<Table> {
  const captured = allCapturedRequests();
  const base = captured[0]?.body ?? {};
  const headers = captured[0]?.headers ?? {};
  const n = Math.max(5, Math.round(20 * scale));
  const direct = rig.variants.find((v) => v.name === 'direct')?.target;
  const shim = rig.variants.find((v) => v.name === 'shim')?.target;
  if (direct === undefined || shim === undefined) throw new Error('the shim rig has no direct or shim variant');
  await rig.setMode({ kind: 'json' });

  // A photo-sized PNG that deflate cannot shrink: 5.8 MB, 7.7 MB as base64 in the body.
  const png = makePng(1600, 1200, 7, true);
  const image = withRead(base, '/repo/screenshot.png', imageBlock(png));
  const pages = 20;
  const samePdf = withRead(base, '/repo/spec.pdf', pdfBlock(pdf(pages, 0)));
  const freshPdfs = Array.from({ length: n + 1 }, (_, i) => withRead(base, '/repo/spec.pdf', pdfBlock(pdf(pages, i + 1))));

  const cases: Array<{ name: string; body: Buffer; shim: () => Promise<number[]> }> = [
    { name: `PNG ${(png.length / 1e6).toFixed(1)} MB, no vision → note`, body: image, shim: () => timeMany(shim, headers, Array<Buffer>(n).fill(image)) },
    { name: `PNG ${(png.length / 1e6).toFixed(1)} MB, vision → untouched`, body: image, shim: () => timeMany(rig.shimVision, headers, Array<Buffer>(n).fill(image)) },
    { name: `PDF ${pages} pages, ${(pdf(pages, 0).length / 1e3).toFixed(0)} kB, first sight → text`, body: samePdf, shim: async () => (await timeMany(shim, headers, freshPdfs)).slice(1) },
    { name: `PDF ${pages} pages, again (cached text)`, body: samePdf, shim: async () => (await timeMany(shim, headers, [samePdf, ...Array<Buffer>(n).fill(samePdf)])).slice(1) },
  ];
  const rows: string[][] = [];
  for (const c of cases) {
    await timeMany(direct, headers, [c.body]); // warm-up
    const d = await timeMany(direct, headers, Array<Buffer>(n).fill(c.body));
    const s = await c.shim();
    rows.push([c.name, `${(c.body.length / 1e6).toFixed(2)} MB`, percentile(d, 50).toFixed(1), percentile(s, 50).toFixed(1), percentile(s, 99).toFixed(1), formatSpread(spread(s.map((v, i) => v - (d[i] ?? v))), 1)]);
  }
  return {
    title: `(f) media in the last tool result of a captured body, small JSON reply, ${n} requests each, sequential`,
    columns: ['case', 'body', 'direct p50 ms', 'shim p50 ms', 'shim p99 ms', 'shim − direct ms'],
    rows,
  };
}
