import { describe, expect, it } from 'vitest';
import { strictToolCallIds, strictToolId } from '../../../src/shim/rewrite/tool-call-ids.js';
import { toolResultsFirst } from '../../../src/shim/rewrite/tool-results-first.js';
import { blocksOf, capturedBody, capturedSession, view, type BlockView } from './fixtures.js';

const ids = (body: unknown): string[] =>
  view(body).messages.flatMap((m) => blocksOf(m.content)).flatMap((b: BlockView) => (b.type === 'tool_use' ? [String(b.id)] : b.type === 'tool_result' ? [String(b.tool_use_id)] : []));

describe('toolResultsFirst', () => {
  it("splits Claude Code's compaction request: the tool results, then the instruction, as two user messages", () => {
    const body = capturedBody('auto-compaction-32k-window-8k-output', 'req-009.json');
    const last = view(body).messages.at(-1);
    const blocks = blocksOf(last?.content);
    expect(blocks.some((b) => b.type === 'tool_result') && blocks.some((b) => b.type === 'text')).toBe(true);

    const result = toolResultsFirst(body);
    expect(result.split).toBeGreaterThanOrEqual(1);
    const [results, rest] = view(result.body).messages.slice(-2);
    expect(results?.role).toBe('user');
    expect(rest?.role).toBe('user');
    expect(blocksOf(results?.content)).toEqual(blocks.filter((b) => b.type === 'tool_result'));
    expect(blocksOf(rest?.content)).toEqual(blocks.filter((b) => b.type !== 'tool_result'));
    expect(JSON.stringify(rest?.content)).toContain('CRITICAL: Respond with TEXT ONLY');
  });

  it('leaves messages of tool results only, or of text only, as they are (the same object)', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-003.json');
    const result = toolResultsFirst(body);
    if (result.split === 0) expect(result.body).toBe(body);
    for (const m of view(result.body).messages) {
      const blocks = blocksOf(m.content);
      if (blocks.some((b) => b.type === 'tool_result')) expect(blocks.every((b) => b.type === 'tool_result')).toBe(true);
    }
  });
});

describe('strictToolCallIds', () => {
  it('gives every id of a captured session nine letters and digits; each result still names its call', () => {
    const body = capturedBody('session-8-tool-turns', 'req-009.json');
    const before = ids(body);
    expect(before.some((id) => !/^[A-Za-z0-9]{9}$/.test(id))).toBe(true);
    const result = strictToolCallIds(body);
    const after = ids(result.body);
    expect(after).toHaveLength(before.length);
    for (const id of after) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    // Pairs keep matching: the same old id maps to the same new one.
    expect(after.map((id) => after.indexOf(id))).toEqual(before.map((id) => before.indexOf(id)));
    expect(new Set(after).size).toBe(new Set(before).size);
  });

  it('is stable across turns: a call keeps its new id in every later request (the prompt prefix does not change)', () => {
    const session = capturedSession('session-8-tool-turns').map((r) => ids(strictToolCallIds(r.body).body));
    for (let i = 1; i < session.length; i++) expect(session[i]?.slice(0, session[i - 1]?.length)).toEqual(session[i - 1]);
  });

  it('keeps ids that already have the shape, and bodies without tool calls untouched', () => {
    expect(strictToolId('a1B2c3D4e')).toBe('a1B2c3D4e');
    const body = capturedBody('session-write-bash-3-turns', 'req-001.json');
    expect(strictToolCallIds(body)).toEqual({ body, changed: false, rewritten: 0 });
  });
});
