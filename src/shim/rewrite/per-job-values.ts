/**
 * Names the values that differ from one job to the next (its session id, its private temp folder, its settings
 * file's folder) in the environment block of the first user message, and states each value once, after the task.
 * Owns only `messages[0]`; runs after the system-message fold, which puts that block there.
 *
 * Why: with the sandbox on, Claude Code's environment block (docs/claude-code-wire.md §2) carries the sandbox's
 * filesystem lists, which name the job's temp folder, its settings file and paths with the session id. The block
 * comes right after the system prompt and tools, so a value that changes there moved the start of every job's
 * prompt: the next job on the same model reused ~70% of the server's cache instead of everything up to its task
 * (measured, test/e2e/per-job-values.e2e.test.ts and test/real/run-agent.real.test.ts). With the values named, the
 * block is byte-identical from job to job, the model still reads the real values right after its task, and every
 * request of a job rewrites the same way (the first message never changes), so the prefix also holds across turns.
 */
import { isRecord, isTextBlock, withKey, type JsonRecord } from '../json/json-shape.js';

export interface PerJobValue {
  /** What the block says instead, e.g. `{session-id}`. */
  readonly name: string;
  /** What differs per job, e.g. the session's UUID. Empty values are ignored. */
  readonly value: string;
}

export interface PerJobValuesResult {
  /** The input object itself when nothing was named. */
  readonly body: unknown;
  readonly changed: boolean;
  /** Distinct values named (each stated once after the task). */
  readonly named: number;
}

/** The fold's wrapper for a system message's text (fold-system-messages.ts): only those blocks are rewritten. */
const FOLDED = '<system>';

function note(found: readonly PerJobValue[]): { type: 'text'; text: string } {
  const parts = found.map((v) => `${v.name} stands for ${v.value}`);
  return { type: 'text', text: `<system>In the environment above, ${parts.join(', ')} (they differ from job to job).</system>` };
}

/** `text` with every occurrence of each value replaced by its name; longer values first, so a value inside another is never split. */
function nameAll(text: string, values: readonly PerJobValue[], found: Set<PerJobValue>): string {
  let out = text;
  for (const v of values) {
    if (!out.includes(v.value)) continue;
    out = out.split(v.value).join(v.name);
    found.add(v);
  }
  return out;
}

export function namePerJobValues(body: unknown, values: readonly PerJobValue[]): PerJobValuesResult {
  const unchanged: PerJobValuesResult = { body, changed: false, named: 0 };
  const usable = values.filter((v) => v.value !== '').sort((a, b) => b.value.length - a.value.length);
  if (usable.length === 0 || !isRecord(body) || !Array.isArray(body.messages)) return unchanged;
  const first: unknown = body.messages[0];
  if (!isRecord(first) || first.role !== 'user' || !Array.isArray(first.content)) return unchanged;
  const found = new Set<PerJobValue>();
  const content = (first.content as readonly unknown[]).map((block) => {
    if (!isTextBlock(block) || !block.text.startsWith(FOLDED)) return block;
    const text = nameAll(block.text, usable, found);
    return text === block.text ? block : { ...block, text };
  });
  if (found.size === 0) return unchanged;
  const ordered = usable.filter((v) => found.has(v)).sort((a, b) => a.name.localeCompare(b.name));
  const message: JsonRecord = withKey(first, 'content', [...content, note(ordered)]);
  return { body: withKey(body, 'messages', [message, ...(body.messages as readonly unknown[]).slice(1)]), changed: true, named: found.size };
}
