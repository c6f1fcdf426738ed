import { describe, expect, it } from 'vitest';
import { neutraliseBillingHeader } from '../../../src/shim/rewrite/billing-header.js';
import { capturedBody, view, type JsonObject } from './fixtures.js';

/** A captured request as a first-party client would send it: same header plus a per-request cch hash. */
function withCch(cch: string): JsonObject {
  const body = capturedBody('session-write-bash-3-turns', 'req-002.json');
  const header = view(body).system[0];
  if (header === undefined) throw new Error('fixture has no system[0]');
  expect(header.text).toBe('x-anthropic-billing-header: cc_version=2.1.332.4e6; cc_entrypoint=sdk-cli;');
  header.text = `${String(header.text)} cch=${cch};`;
  return body;
}

function headerText(body: unknown): string {
  return String(view(body).system[0]?.text);
}

describe('neutraliseBillingHeader', () => {
  it('sets the cch hash to 00000 so two requests that differ only there become byte-identical', () => {
    const a = neutraliseBillingHeader(withCch('a5141'));
    const b = neutraliseBillingHeader(withCch('c9f02'));
    expect(a.changed).toBe(true);
    expect(headerText(a.body)).toBe('x-anthropic-billing-header: cc_version=2.1.332.4e6; cc_entrypoint=sdk-cli; cch=00000;');
    expect(JSON.stringify(a.body)).toBe(JSON.stringify(b.body));
  });

  it('changes nothing else: other system blocks, key order and the rest of the body are the same', () => {
    const input = withCch('a5141');
    const out = view(neutraliseBillingHeader(input).body);
    expect(Object.keys(out)).toEqual(Object.keys(input));
    expect(out.system.slice(1)).toEqual(view(input).system.slice(1));
    expect(out.messages).toBe(input.messages);
    expect(out.tools).toBe(input.tools);
    expect(headerText(input)).toContain('cch=a5141;');
  });

  it('handles a string system prompt', () => {
    const body = { system: 'x-anthropic-billing-header: cc_version=2.1.37.3a3; cc_entrypoint=cli; cch=ff6a5;\nYou are Claude Code.' };
    expect(neutraliseBillingHeader(body).body).toEqual({
      system: 'x-anthropic-billing-header: cc_version=2.1.37.3a3; cc_entrypoint=cli; cch=00000;\nYou are Claude Code.',
    });
  });

  it('returns the same object for the captured requests, which carry no cch (custom base URL)', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-001.json');
    expect(neutraliseBillingHeader(body)).toEqual({ body, changed: false });
    expect(neutraliseBillingHeader(body).body).toBe(body);
  });

  it.each([
    ['already neutral', { system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=1; cch=00000;' }] }],
    ['not 5 characters', { system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=1; cch=abc;' }] }],
    ['header not first', { system: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'x-anthropic-billing-header: cch=ab123;' }] }],
    ['text not at the start', { system: 'You are x. x-anthropic-billing-header: cch=ab123;' }],
    ['odd system', { system: [42] }],
    ['no body', null],
  ])('leaves %s alone', (_label, body) => {
    expect(neutraliseBillingHeader(body).body).toBe(body);
  });
});
