import { describe, expect, it } from 'vitest';
import { stripFields } from '../../../src/shim/rewrite/strip-fields.js';
import { capturedBody, view } from './fixtures.js';

describe('stripFields', () => {
  it('removes only the named top-level fields that are present and keeps the order of the rest', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-004.json');
    const result = stripFields(body, ['safeguards', 'context_management', 'not_there']);
    expect(result.stripped).toEqual(['safeguards', 'context_management']);
    expect(Object.keys(view(result.body))).toEqual(
      Object.keys(body).filter((k) => k !== 'safeguards' && k !== 'context_management'),
    );
  });

  it('returns the input object when nothing is named or present', () => {
    const body = { a: 1 };
    expect(stripFields(body, []).body).toBe(body);
    expect(stripFields(body, ['b'])).toEqual({ body, changed: false, stripped: [] });
  });

  it('keeps a parsed "__proto__" key as a plain key', () => {
    const body: unknown = JSON.parse('{"__proto__":{"polluted":true},"drop":1}');
    const out = stripFields(body, ['drop']).body;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true}}');
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});
