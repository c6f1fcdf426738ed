import { describe, expect, it } from 'vitest';
import { rewriteModelId } from '../../../src/shim/rewrite/model-id.js';
import { capturedBody, view } from './fixtures.js';

describe('rewriteModelId', () => {
  it("rewrites the SDK's setModel probe id to the served id, keeping model as the first key", () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-005.json');
    const result = rewriteModelId(body, 'Qwen/Qwen3.6-27B');
    expect(result).toMatchObject({ changed: true, rewrittenFrom: 'local-model-2' });
    expect(Object.keys(view(result.body))).toEqual(['model', 'max_tokens', 'system', 'messages', 'metadata']);
    expect(JSON.stringify(result.body)).toBe(JSON.stringify(body).replace('"model":"local-model-2"', '"model":"Qwen/Qwen3.6-27B"'));
  });

  it('returns the input object when the id already matches', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-001.json');
    expect(rewriteModelId(body, 'local-model')).toEqual({ body, changed: false, rewrittenFrom: undefined });
  });

  it('adds model when the body has none, and reports no previous id', () => {
    expect(rewriteModelId({ messages: [] }, 'm')).toEqual({ body: { messages: [], model: 'm' }, changed: true, rewrittenFrom: undefined });
  });

  it.each([null, 'x', [1]])('leaves a body that is not an object alone: %j', (body) => {
    expect(rewriteModelId(body, 'm').body).toBe(body);
  });
});
