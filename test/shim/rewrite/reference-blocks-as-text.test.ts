/**
 * tool_reference and search_result as text. The ToolSearch result shape is the
 * one Claude Code 2.1.x sends (claude-code-wire.md §2: a tool_result whose
 * content is only tool_reference blocks), which llama-server would turn into
 * an empty tool result.
 */
import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../../src/shim/body/normalise.js';
import { referenceBlocksAsText } from '../../../src/shim/rewrite/reference-blocks-as-text.js';

const toolSearch = {
  model: 'x',
  messages: [
    { role: 'user', content: 'Schedule a job.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:CronList,NotebookEdit' } }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'CronList' }, { type: 'tool_reference', tool_name: 'NotebookEdit' }] }],
    },
  ],
};

describe('referenceBlocksAsText', () => {
  it('says which tools a ToolSearch loaded, inside its tool_result', () => {
    const out = referenceBlocksAsText(toolSearch);
    expect(out.replaced).toBe(2);
    expect((out.body as typeof toolSearch).messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: '[tool CronList is loaded: its definition is in the tool list]' },
            { type: 'text', text: '[tool NotebookEdit is loaded: its definition is in the tool list]' },
          ],
        },
      ],
    });
    expect((out.body as typeof toolSearch).messages[0]).toBe(toolSearch.messages[0]);
  });

  it('turns a search result into its title, source and text', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'search_result', source: 'https://docs.example/a', title: 'A', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] }] }] };
    expect(JSON.stringify(referenceBlocksAsText(body).body)).toContain('"[search result: A (https://docs.example/a)]\\nfirst\\nsecond"');
  });

  it('leaves a body without either block as the same object, and runs inside normaliseRequest with a note', () => {
    const plain = { model: 'x', messages: [{ role: 'user', content: 'hi' }] };
    expect(referenceBlocksAsText(plain).body).toBe(plain);
    const normalised = normaliseRequest(toolSearch, { servedModel: 'x' });
    expect(normalised.notes.referenceBlocksAsText).toBe(2);
    expect(JSON.stringify(normalised.body)).not.toContain('tool_reference');
  });
});
