/**
 * Measures the point of folding in place: across a captured session, the
 * normalised request N is an append-only prefix of request N+1, so the
 * backend's KV cache of request N is reused.
 *
 * What is asserted, precisely: let canon(b) = JSON.stringify({system, tools,
 * messages}) of a normalised body after deleting every `cache_control` key and
 * turning string message content into one text block (the moving breakpoint
 * and the string/array flip are Claude Code's doing and local backends render
 * both the same). canon(N) ends with `]}]}` (its last message's content array,
 * that message, the messages array, the object). canon(N) without those 4
 * characters must be a prefix of canon(N+1): system and tools identical, every
 * earlier message identical, and the earlier last message's blocks are the
 * first blocks of the same message later (a system message folded into it
 * later appends a block there).
 */
import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../../src/shim/body/normalise.js';
import { blocksOf, capturedSession, view, type CapturedRequest, type JsonObject } from './fixtures.js';

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cache_control')
      .map(([key, v]) => [key, withoutCacheControl(v)]),
  );
}

function canon(body: unknown): string {
  const b = view(body);
  const messages = b.messages.map((m) => ({ ...m, content: blocksOf(m.content) }));
  return JSON.stringify(withoutCacheControl({ system: b.system, tools: b.tools, messages }));
}

/** Main-loop requests only: the SDK's setModel probe ("Hi", max_tokens 1, no tools) is a side request. */
function mainLoop(session: string): CapturedRequest[] {
  return capturedSession(session).filter((r) => r.body.max_tokens !== 1);
}

function normalised(session: string): unknown[] {
  return mainLoop(session).map((r) => normaliseRequest(r.body, { servedModel: 'qwen' }).body);
}

/** Pair i → i+1 (1-based request numbers) keeps the prefix. */
function prefixKept(earlier: string, later: string): boolean {
  expect(earlier.endsWith(']}]}')).toBe(true);
  return later.startsWith(earlier.slice(0, -4));
}

function pairResults(bodies: unknown[]): boolean[] {
  const canons = bodies.map(canon);
  return canons.slice(1).map((later, i) => prefixKept(canons[i] ?? '', later));
}

/** What hoisting (the alternative we rejected) does: system messages appended to the top-level system. */
function hoisted(body: JsonObject): JsonObject {
  const { messages, system } = view(body);
  const texts = messages
    .filter((m) => m.role === 'system')
    .map((m) => blocksOf(m.content).map((b) => String(b.text)).join(''));
  return {
    ...body,
    system: [...system, ...texts.map((text) => ({ type: 'text', text }))],
    messages: messages.filter((m) => m.role !== 'system'),
  };
}

describe('normalised requests stay append-only across a captured session', () => {
  it.each(['session-write-bash-3-turns', 'session-8-tool-turns', 'sdk-mid-conversation-system-messages'])(
    '%s: every request is a prefix of the next and no role:"system" message is left',
    (session) => {
      const bodies = normalised(session);
      expect(bodies.length).toBeGreaterThanOrEqual(3);
      expect(pairResults(bodies).every(Boolean)).toBe(true);
      for (const body of bodies) expect(JSON.stringify(body)).not.toContain('"role":"system"');
    },
  );

  it('auto-compaction session: prefix kept on every pair except the three compaction resets', () => {
    const bodies = normalised('auto-compaction-32k-window-8k-output');
    expect(bodies).toHaveLength(14);
    const kept = pairResults(bodies);
    const broken = kept.flatMap((ok, i) => (ok ? [] : [`${i + 1}->${i + 2}`]));
    // req 9, 11 and 13 are summarisation requests; the next request starts a new conversation. Request 9 adds its
    // instruction to a tool-result turn, which tool-turn-text.ts moves inside that result: the JSON differs inside the
    // last result (8->9), while the rendered prompt still shares everything up to that result's own text.
    expect(broken).toEqual(['8->9', '9->10', '11->12', '13->14']);
    const firstUser = (b: unknown): string => JSON.stringify(view(b).messages[0]);
    for (const i of [9, 11, 13]) expect(firstUser(bodies[i])).toContain('This session is being continued from a previous conversation');
  });

  it('control: hoisting the same system messages instead breaks the prefix in the SDK session', () => {
    const hoistedBodies = mainLoop('sdk-mid-conversation-system-messages').map((r) => hoisted(r.body));
    const kept = pairResults(hoistedBodies);
    expect(kept.filter((ok) => !ok).length).toBeGreaterThanOrEqual(3);
  });
});
