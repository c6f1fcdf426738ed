/**
 * Test helpers for comparing simulator output with captured llama-server
 * fixtures: reading `.http` captures (both layouts), parsing SSE, a structural
 * "shape" of JSON (keys in order + value types), and small HTTP helpers.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect } from 'vitest';
import { fixturePath, startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';

export interface HttpCapture {
  readonly status: number;
  readonly text: string;
}

/** `.http` files: body then "HTTP 200" (Aug 2026 captures), or "HTTP/1.1 400 …" then body (b9553). */
export function readHttpFixture(...parts: string[]): HttpCapture {
  const raw = readFileSync(fixturePath('llama-server', ...parts), 'utf8');
  const lead = /^HTTP\/1\.1 (\d{3})[^\n]*\n/.exec(raw);
  if (lead !== null) return { status: Number(lead[1]), text: raw.slice(lead[0].length).trimEnd() };
  const tail = /\nHTTP (\d{3})\s*$/.exec(raw);
  if (tail !== null) return { status: Number(tail[1]), text: raw.slice(0, tail.index).trimEnd() };
  return { status: 200, text: raw };
}

export function readJsonFixture(...parts: string[]): unknown {
  return JSON.parse(readFileSync(fixturePath(...parts), 'utf8'));
}

export interface SseRecord {
  readonly event: string;
  readonly data: unknown;
}

export function parseSse(text: string): SseRecord[] {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
      const parsed: unknown = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? 'null');
      return { event, data: parsed };
    });
}

/** Keys in order and value types, recursively; arrays by the shape of their first element. */
export function shapeOf(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? ['empty'] : [shapeOf(v[0])];
  if (typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]));
  }
  return typeof v;
}

/** Event names with the block type/delta type, e.g. "content_block_delta:thinking_delta". */
export function eventSignature(events: readonly SseRecord[]): string[] {
  return events.map((e) => {
    const d = e.data;
    if (typeof d !== 'object' || d === null) return e.event;
    const cb = 'content_block' in d ? d.content_block : undefined;
    const delta = 'delta' in d ? d.delta : undefined;
    const sub =
      typeof cb === 'object' && cb !== null && 'type' in cb
        ? String(cb.type)
        : typeof delta === 'object' && delta !== null && 'type' in delta
          ? String(delta.type)
          : '';
    return sub === '' ? e.event : `${e.event}:${sub}`;
  });
}

/** Collapses runs of the same entry ("a,a,a,b" → "a,b") so delta counts do not matter. */
export function collapseRuns(xs: readonly string[]): string[] {
  return xs.filter((x, i) => i === 0 || xs[i - 1] !== x);
}

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  json(): unknown;
}

export async function request(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const r = await fetch(base + path, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await r.text();
  return { status: r.status, text, headers: r.headers, json: (): unknown => JSON.parse(text) };
}

/** A minimal valid Anthropic request. */
export function simpleBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }], ...extra };
}

export function claudeCodeRequest(folder: string, n: number): Record<string, unknown> {
  const rec = readJsonFixture('claude-code', folder, `req-${String(n).padStart(3, '0')}.json`);
  if (typeof rec !== 'object' || rec === null || !('body' in rec) || typeof rec.body !== 'object' || rec.body === null) {
    throw new Error(`fixture ${folder}/${n} has no body`);
  }
  return { ...rec.body };
}

// Asymmetric matchers typed as unknown, so they can sit inside object literals without `any`.
export const anyNumber: unknown = expect.any(Number);
export const anyString: unknown = expect.any(String);
export function matching(re: RegExp): unknown {
  return expect.stringMatching(re);
}
export function containing(text: string): unknown {
  return expect.stringContaining(text);
}
export function objectContaining(o: Record<string, unknown>): unknown {
  return expect.objectContaining(o);
}

/** The numeric fields of a reply's `usage` (empty when absent). */
export function usageOf(reply: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof reply === 'object' && reply !== null && 'usage' in reply && typeof reply.usage === 'object' && reply.usage !== null) {
    for (const [k, v] of Object.entries(reply.usage)) if (typeof v === 'number') out[k] = v;
  }
  return out;
}

/**
 * A starter for one simulator per test, closed after each test. `defaults`
 * are merged under each call's options.
 */
export function simulatorPerTest(defaults: SimulatorOptions): (opts?: Partial<SimulatorOptions>) => Promise<Simulator> {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });
  return async (opts = {}) => {
    sim = await startSimulator({ ...defaults, ...opts });
    return sim;
  };
}
