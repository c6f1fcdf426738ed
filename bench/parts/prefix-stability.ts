/**
 * Part 2: prompt-prefix stability across every captured session. For each
 * main-loop request, the share of the previous request's prompt that this one
 * starts with — the part a backend's KV cache can reuse — with no
 * normalisation, with system messages hoisted into `system`, and with the
 * shim's in-place fold (normaliseRequest).
 *
 * The prompt compared is canon(b) = JSON.stringify({system, tools, messages})
 * with every cache_control removed, string content as one text block (the
 * moving cache breakpoint and the string/array flip are Claude Code's, and
 * local backends render both alike), and a tool result's content as its texts
 * joined. The previous prompt loses what closes its last text (the quote, then
 * its block, content array, message, messages and object) since a later
 * request continues inside them.
 */
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { COMPACTION_MARKER } from '../../test/sim/index.js';
import { capturedSession, capturedSessions, type JsonObject } from '../lib/fixtures.js';
import type { Table, Target } from '../lib/report.js';

type Variant = 'none' | 'hoist' | 'fold';
const VARIANTS: readonly Variant[] = ['none', 'hoist', 'fold'];

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cache_control').map(([k, v]) => [k, withoutCacheControl(v)]));
}

function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function messagesOf(body: JsonObject): JsonObject[] {
  return Array.isArray(body.messages) ? body.messages.filter((m): m is JsonObject => typeof m === 'object' && m !== null) : [];
}

/**
 * A message's blocks, a tool result's content of texts as those joined, last: a chat template renders a tool result
 * as its text, so text appended to it (Claude Code's compaction request, the shim's tool-turn text) continues it.
 */
function canonBlocks(content: unknown): unknown[] {
  return blocksOf(content).map((b) => {
    const block = b as { type?: unknown; content?: unknown };
    if (block.type !== 'tool_result') return b;
    const { content: result, ...rest } = block;
    const allText = blocksOf(result).every((r) => (r as { type?: unknown }).type === 'text');
    return { ...rest, content: allText ? textOf(result) : result };
  });
}

/** The prompt a backend renders from a body, as compared here (also by the media end-to-end test). */
export function canon(body: JsonObject): string {
  const messages = messagesOf(body).map((m) => ({ ...m, content: canonBlocks(m.content) }));
  return JSON.stringify(withoutCacheControl({ system: body.system, tools: body.tools, messages }));
}

function textOf(content: unknown): string {
  return blocksOf(content)
    .map((b) => (typeof b === 'object' && b !== null && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
    .join('');
}

/** The rejected alternative: system messages appended to the top-level system, removed from messages. */
function hoisted(body: JsonObject): JsonObject {
  const messages = messagesOf(body);
  const system: unknown[] = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body.system) ? (body.system as unknown[]) : []; // elements are copied, never read
  const texts = messages.filter((m) => m.role === 'system').map((m) => ({ type: 'text', text: textOf(m.content) }));
  return { ...body, system: [...system, ...texts], messages: messages.filter((m) => m.role !== 'system') };
}

function prompt(body: JsonObject, variant: Variant): string {
  if (variant === 'none') return canon(body);
  if (variant === 'hoist') return canon(hoisted(body));
  const out = normaliseRequest(body, { servedModel: 'bench-model' }).body;
  return canon(typeof out === 'object' && out !== null ? (out as JsonObject) : {}); // normaliseRequest returns an object for an object
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** What closes the previous prompt's last text: a later request continues inside it. */
const OPEN_END = /"?[\]}]*$/;

export interface Reuse {
  /** Characters of the previous prompt that the next one starts with. */
  readonly shared: number;
  /** That, as a share of the previous prompt (without its closing `]}]}`). */
  readonly share: number;
}

export function prefixReuse(prev: string, next: string): Reuse {
  const open = prev.replace(OPEN_END, '');
  const shared = commonPrefix(open, next);
  return { shared, share: open.length === 0 ? 1 : shared / open.length };
}

function isCompaction(body: JsonObject): boolean {
  const users = messagesOf(body).filter((m) => m.role === 'user');
  return textOf(users.at(-1)?.content).includes(COMPACTION_MARKER);
}

export function measurePrefixStability(): { tables: Table[]; targets: Target[]; notes: string[] } {
  const rows: string[][] = [];
  let foldMisses = 0;
  let foldBelowHoist = 0;
  let pairs = 0;
  let compacting = 0;
  const skipped: string[] = [];
  const pct = (v: number): string => `${(v * 100).toFixed(1)}%`;
  for (const session of capturedSessions()) {
    let prev: { file: string; body: JsonObject; compaction: boolean } | undefined;
    for (const req of capturedSession(session)) {
      // The SDK's setModel probe ("Hi", max_tokens 1, no tools) is a side request, not a turn of the conversation.
      if (req.body.max_tokens === 1) {
        skipped.push(`${session}/${req.file}`);
        continue;
      }
      if (prev !== undefined) {
        const [none, hoist, fold] = VARIANTS.map((v) => prefixReuse(prompt(prev?.body ?? {}, v), prompt(req.body, v)));
        if (none === undefined || hoist === undefined || fold === undefined) continue;
        const kind = prev.compaction ? 'after compaction (new conversation)' : isCompaction(req.body) ? 'compaction request' : 'turn';
        if (prev.compaction) compacting++;
        else {
          pairs++;
          if (fold.share < 1) foldMisses++;
        }
        // Compared in characters reused where the fold does not keep it all: the shares have different denominators
        // (hoisting moves text, folding adds tags, and the shim's nine-character tool ids shorten every later turn).
        if (fold.share < 1 && fold.shared < hoist.shared) foldBelowHoist++;
        rows.push([session, `${prev.file.slice(4, 7)} → ${req.file.slice(4, 7)}`, kind, pct(none.share), pct(hoist.share), pct(fold.share), String(hoist.shared), String(fold.shared)]);
      }
      prev = { file: req.file, body: req.body, compaction: isCompaction(req.body) };
    }
  }
  return {
    tables: [{ title: 'share of the previous prompt that the next request starts with', columns: ['session', 'requests', 'pair', 'none', 'hoist', 'fold (shim)', 'hoist chars', 'fold chars'], rows }],
    targets: [
      { what: 'fold keeps 100% of the prefix on every non-compacting pair', measured: `${pairs - foldMisses}/${pairs} pairs`, target: `${pairs}/${pairs}`, met: foldMisses === 0 },
      { what: 'fold never reuses less than hoisting (characters of prefix, every pair it does not keep whole)', measured: `${foldBelowHoist} pairs below`, target: '0', met: foldBelowHoist === 0 },
    ],
    notes: [`${compacting} pairs start a new conversation after a compaction and are not held to 100%`, `side requests skipped: ${skipped.join(', ') || 'none'}`],
  };
}
