import { describe, expect, it } from 'vitest';
import { foldSystemMessages, foldedSystemBlock } from '../../../src/shim/rewrite/fold-system-messages.js';
import { blocksOf, capturedBody, view, type MessageView } from './fixtures.js';

type Message = Pick<MessageView, 'role' | 'content'>;

function messagesOf(body: unknown): MessageView[] {
  return view(body).messages;
}

describe('foldSystemMessages on captured Claude Code requests', () => {
  it('folds messages[1] (the environment block) of the first request to the START of the first user message, before git status and the task', () => {
    const body = capturedBody('session-write-bash-3-turns', 'req-001.json');
    const before = structuredClone(body);
    const systemText = String(blocksOf(messagesOf(body)[1]?.content)[0]?.text);
    expect(systemText).toMatch(/^# Environment/);

    const result = foldSystemMessages(body);

    expect(result).toMatchObject({ changed: true, folded: 1, unfoldable: 0 });
    const messages = messagesOf(result.body);
    expect(messages.map((m) => m.role)).toEqual(['user']);
    const original = blocksOf(messagesOf(before)[0]?.content);
    expect(messages[0]?.content).toEqual([{ type: 'text', text: `<system>${systemText}</system>` }, ...original]);
    // What every job in the repository shares (environment, git status) now comes before what is per-job (the task).
    expect(String(blocksOf(messages[0]?.content).at(-1)?.text)).toBe(String(original.at(-1)?.text));
    // The input is not mutated.
    expect(body).toEqual(before);
  });

  it('folds to the same bytes whether the system message was last (array + cache_control) or not (string)', () => {
    const first = foldSystemMessages(capturedBody('session-write-bash-3-turns', 'req-001.json'));
    const second = foldSystemMessages(capturedBody('session-write-bash-3-turns', 'req-002.json'));
    const a = JSON.stringify(blocksOf(messagesOf(first.body)[0]?.content)[0]);
    const b = JSON.stringify(blocksOf(messagesOf(second.body)[0]?.content)[0]);
    expect(a.length).toBeGreaterThan(9000);
    expect(a).toBe(b);
    expect(a).not.toContain('cache_control');
  });

  it('folds each mid-conversation system message into the user turn before it (SDK session, 5 of them)', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-006.json');
    const roles = messagesOf(body).map((m) => m.role[0]).join('');
    expect(roles).toBe('usausausausaus');

    const result = foldSystemMessages(body);
    const messages = messagesOf(result.body);
    expect(result.folded).toBe(5);
    expect(messages.map((m) => m.role[0]).join('')).toBe('uauauauau');
    // msg 4 "USD budget…" followed the tool_result of msg 3: it is now that user turn's second block.
    expect(messages[2]?.content).toEqual([
      blocksOf(messagesOf(body)[3]?.content)[0],
      foldedSystemBlock('USD budget: $0.0484/$50; $49.9516 remaining'),
    ]);
    // msg 7 followed the string prompt "p2: after external edit": string content becomes a text block first.
    expect(messages[4]?.content).toEqual([
      { type: 'text', text: 'p2: after external edit' },
      foldedSystemBlock('USD budget: $0.1008/$50; $49.8992 remaining'),
    ]);
    // The last one (array form with cache_control) lands after the 4 blocks of the /model turn, without cache_control.
    const last = blocksOf(messages[8]?.content);
    expect(last).toHaveLength(5);
    expect(last[4]).toEqual(foldedSystemBlock('You are powered by the model local-model-2.\n\nUSD budget: $0.2056/$50; $49.7944 remaining'));
  });

  it('keeps every other field byte-for-byte and in the same key order', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-004.json');
    const result = foldSystemMessages(body);
    const out = view(result.body);
    expect(Object.keys(out)).toEqual(Object.keys(body));
    for (const key of Object.keys(body).filter((k) => k !== 'messages')) {
      expect(JSON.stringify(out[key]), key).toBe(JSON.stringify(body[key]));
    }
    // Assistant and untouched user messages are the very same objects.
    const inMessages = messagesOf(body).filter((m) => m.role === 'assistant');
    const outMessages = messagesOf(out).filter((m) => m.role === 'assistant');
    outMessages.forEach((m, i) => expect(m).toBe(inMessages[i]));
  });

  it('returns the input object itself when there is no system message (setModel probe)', () => {
    const body = capturedBody('sdk-mid-conversation-system-messages', 'req-005.json');
    const result = foldSystemMessages(body);
    expect(result).toEqual({ body, changed: false, folded: 0, unfoldable: 0 });
    expect(result.body).toBe(body);
  });
});

describe('foldSystemMessages placement rules', () => {
  const user = (content: unknown): Message => ({ role: 'user', content });

  it('prepends system messages that come before any user message into the next user message, in order', () => {
    const body = {
      messages: [
        { role: 'system', content: 'one' },
        { role: 'system', content: [{ type: 'text', text: 'two' }] },
        { role: 'assistant', content: 'hi' },
        user('question'),
      ],
    };
    const out = messagesOf(foldSystemMessages(body).body);
    expect(out).toEqual([
      { role: 'assistant', content: 'hi' },
      user([foldedSystemBlock('one'), foldedSystemBlock('two'), { type: 'text', text: 'question' }]),
    ]);
  });

  it('appends to the nearest preceding user message even across an assistant turn', () => {
    const body = { messages: [user('q'), { role: 'assistant', content: 'a' }, { role: 'system', content: 's' }] };
    expect(messagesOf(foldSystemMessages(body).body)).toEqual([
      user([{ type: 'text', text: 'q' }, foldedSystemBlock('s')]),
      { role: 'assistant', content: 'a' },
    ]);
  });

  it('joins the texts of a multi-block system message with no separator, as the backends render them', () => {
    const body = { messages: [user('q'), { role: 'system', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] };
    expect(messagesOf(foldSystemMessages(body).body)[0]?.content).toEqual([foldedSystemBlock('ab'), { type: 'text', text: 'q' }]);
  });

  it('puts only the system message at messages[1] first; later ones after the first user message are appended', () => {
    const body = { messages: [user('q'), { role: 'system', content: 'env' }, { role: 'system', content: 'later' }] };
    expect(messagesOf(foldSystemMessages(body).body)).toEqual([user([foldedSystemBlock('env'), { type: 'text', text: 'q' }, foldedSystemBlock('later')])]);
  });

  it('folds the environment block the same way in every request of a session (first, then later turns)', () => {
    const env = { role: 'system', content: 'env' };
    const first = foldSystemMessages({ messages: [user('task'), env] }).body;
    const later = foldSystemMessages({ messages: [user('task'), env, { role: 'assistant', content: 'a' }, user('more')] }).body;
    expect(messagesOf(later)[0]).toEqual(messagesOf(first)[0]);
  });

  it.each([
    ['a string system', 'base', 'base\n\ns1\n\ns2'],
    ['an empty string system', '', 's1\n\ns2'],
    ['a block system', [{ type: 'text', text: 'base' }], [{ type: 'text', text: 'base' }, { type: 'text', text: 's1' }, { type: 'text', text: 's2' }]],
    ['no system', undefined, 's1\n\ns2'],
  ])('with no user message at all, appends to %s', (_label, system, expected) => {
    const body = {
      model: 'm',
      ...(system === undefined ? {} : { system }),
      messages: [
        { role: 'system', content: 's1' },
        { role: 'assistant', content: 'a' },
        { role: 'system', content: 's2' },
      ],
    };
    const result = foldSystemMessages(body);
    expect(result.folded).toBe(2);
    expect(result.body).toMatchObject({ system: expected, messages: [{ role: 'assistant', content: 'a' }] });
  });

  it('leaves a system message alone when its content is not plain text, and says so', () => {
    const odd = { role: 'system', content: [{ type: 'tool_addition', tools: [] }] };
    const body = { messages: [user('q'), odd, { role: 'system', content: 'ok' }] };
    const result = foldSystemMessages(body);
    expect(result).toMatchObject({ changed: true, folded: 1, unfoldable: 1 });
    expect(messagesOf(result.body)).toEqual([user([{ type: 'text', text: 'q' }, foldedSystemBlock('ok')]), odd]);
  });

  it('leaves system messages alone when there is no user message and the top-level system has an odd shape', () => {
    const body = { system: 42, messages: [{ role: 'system', content: 's' }] };
    const result = foldSystemMessages(body);
    expect(result).toEqual({ body, changed: false, folded: 0, unfoldable: 1 });
  });

  it('skips user messages whose content it cannot extend', () => {
    const body = { messages: [user('q'), { role: 'user' }, { role: 'system', content: 's' }] };
    expect(messagesOf(foldSystemMessages(body).body)).toEqual([
      user([{ type: 'text', text: 'q' }, foldedSystemBlock('s')]),
      { role: 'user' },
    ]);
  });

  it.each([null, 'text', 42, [], {}, { messages: 'x' }, { messages: [null, 1, 'a', { role: 'system' }, { content: [] }] }])(
    'never throws and changes nothing on odd input %j',
    (body) => {
      const result = foldSystemMessages(body);
      expect(result.body).toBe(body);
      expect(result.changed).toBe(false);
    },
  );
});
