import { describe, expect, it } from 'vitest';
import { strictToolCallIds, strictToolId } from '../../../src/shim/rewrite/tool-call-ids.js';
import { toolTurnText } from '../../../src/shim/rewrite/tool-turn-text.js';
import { blocksOf, capturedBody, capturedSession, view, type BlockView } from './fixtures.js';

const ids = (body: unknown): string[] =>
  view(body).messages.flatMap((m) => blocksOf(m.content)).flatMap((b: BlockView) => (b.type === 'tool_use' ? [String(b.id)] : b.type === 'tool_result' ? [String(b.tool_use_id)] : []));

describe('toolTurnText', () => {
  it("moves the text of Claude Code's compaction request into its last tool result: no user message follows the results", () => {
    const body = capturedBody('auto-compaction-32k-window-8k-output', 'req-009.json');
    const before = view(body).messages;
    const blocks = blocksOf(before.at(-1)?.content);
    const results = blocks.filter((b) => b.type === 'tool_result');
    const texts = blocks.filter((b) => b.type === 'text').map((b) => String(b.text));
    expect(results.length > 0 && texts.length > 0).toBe(true);

    const result = toolTurnText(body);
    expect(result.moved).toBeGreaterThanOrEqual(1);
    const after = view(result.body).messages;
    expect(after).toHaveLength(before.length);
    const last = blocksOf(after.at(-1)?.content);
    expect(last.every((b) => b.type === 'tool_result')).toBe(true);
    expect(last.slice(0, -1)).toEqual(results.slice(0, -1));
    const tail = JSON.stringify(last.at(-1));
    for (const text of texts) expect(tail).toContain(JSON.stringify(`\n\n${text}`).slice(1, -1));
    expect(tail).toContain('CRITICAL: Respond with TEXT ONLY');
  });

  it('leaves messages without text beside their tool results as they are (the same object)', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-003.json');
    const result = toolTurnText(body);
    view(body).messages.forEach((m, i) => {
      const blocks = blocksOf(m.content);
      if (!(blocks.some((b) => b.type === 'tool_result') && blocks.some((b) => b.type === 'text'))) expect(view(result.body).messages[i]).toBe(m);
    });
  });

  it('keeps an image of the same message as a user message after the results', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'out' }, { type: 'text', text: 'note' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }] }] };
    expect(view(toolTurnText(body).body).messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'out' }, { type: 'text', text: '\n\nnote' }] }] },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }] },
    ]);
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
