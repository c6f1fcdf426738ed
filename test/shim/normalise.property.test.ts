/**
 * Property tests of the request normalisation, centred on the system-message
 * fold. Conversations are generated as logical turns and rendered the way
 * Claude Code sends them: the last message carries `cache_control` on its last
 * block and uses array content; earlier one-text-block user/system messages
 * use string content.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { foldSystemMessages } from '../../src/shim/rewrite/fold-system-messages.js';
import { blocksOf, view, type BlockView, type MessageView } from './rewrite/fixtures.js';

type Role = 'user' | 'assistant' | 'system';
type Block = BlockView;
interface Turn {
  readonly role: Role;
  readonly blocks: readonly Block[];
}
type Message = Pick<MessageView, 'role' | 'content'>;

const FOLD_PREFIX = '<system>';
/** Ids of the shape the tool-call-id rule keeps, so these properties see the fold alone. */
const STRICT_ID = fc.stringMatching(/^[A-Za-z0-9]{9}$/);
const text = fc.string({ maxLength: 12 }).filter((s) => !s.startsWith(FOLD_PREFIX));
const textBlock = fc.record({ type: fc.constant('text'), text });
const userBlock = fc.oneof(
  { weight: 3, arbitrary: textBlock },
  fc.record({ type: fc.constant('tool_result'), tool_use_id: STRICT_ID, content: text, is_error: fc.boolean() }),
  fc.record({ type: fc.constant('image'), source: fc.record({ type: fc.constant('base64'), data: fc.string({ maxLength: 6 }) }) }),
);
const assistantBlock = fc.oneof(
  textBlock,
  fc.record({ type: fc.constant('tool_use'), id: STRICT_ID, name: fc.constantFrom('Bash', 'Write'), input: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 })) }),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.string({ maxLength: 8 }) }),
);
const turn: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ role: fc.constant<Role>('user'), blocks: fc.array(userBlock, { minLength: 1, maxLength: 3 }) }),
  fc.record({ role: fc.constant<Role>('assistant'), blocks: fc.array(assistantBlock, { minLength: 1, maxLength: 3 }) }),
  fc.record({ role: fc.constant<Role>('system'), blocks: fc.array(textBlock, { minLength: 1, maxLength: 2 }) }),
);
const userTurn: fc.Arbitrary<Turn> = fc.record({ role: fc.constant<Role>('user'), blocks: fc.array(userBlock, { minLength: 1, maxLength: 3 }) });

const textOf = (b: Block): string | undefined => (b.type === 'text' && typeof b.text === 'string' ? b.text : undefined);

/** Claude Code's wire form of a conversation. */
function render(turns: readonly Turn[]): Message[] {
  return turns.map((t, i) => {
    if (i === turns.length - 1) {
      const blocks = t.blocks.map((b, j) => (j === t.blocks.length - 1 ? { ...b, cache_control: { type: 'ephemeral' } } : b));
      return { role: t.role, content: blocks };
    }
    const only = t.blocks.length === 1 && t.blocks[0] !== undefined ? textOf(t.blocks[0]) : undefined;
    if (t.role !== 'assistant' && only !== undefined) return { role: t.role, content: only };
    return { role: t.role, content: t.blocks };
  });
}

function body(messages: Message[]): Record<string, unknown> {
  return { model: 'claude-x', system: [{ type: 'text', text: 'You are an agent.' }], messages, max_tokens: 32000 };
}

function isFolded(b: Block): boolean {
  return textOf(b)?.startsWith(FOLD_PREFIX) ?? false;
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cache_control').map(([k, v]) => [k, withoutCacheControl(v)]));
}

function outMessages(result: { body: unknown }): Message[] {
  return view(result.body).messages;
}

const OPTS = { servedModel: 'qwen' };

describe('normaliseRequest properties (fold of role:"system" messages)', () => {
  it('leaves no system message; keeps roles, order and every block; folds each system text once, in order', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 8 }), (turns) => {
        const messages = render(turns);
        // The fold alone: normaliseRequest's later rules (tool-turn-text.ts) move text into tool results on purpose.
        const result = foldSystemMessages(body(messages));
        const out = outMessages(result);
        const systemTexts = turns.filter((t) => t.role === 'system').map((t) => t.blocks.map((b) => textOf(b) ?? '').join(''));

        expect(out.some((m) => m.role === 'system')).toBe(false);
        expect(result.folded).toBe(systemTexts.length);
        const kept = messages.filter((m) => m.role !== 'system');
        expect(out.map((m) => m.role)).toEqual(kept.map((m) => m.role));
        out.forEach((m, i) => expect(blocksOf(m.content).filter((b) => !isFolded(b))).toEqual(blocksOf(kept[i]?.content)));

        const folded = out.flatMap((m) =>
          blocksOf(m.content)
            .filter(isFolded)
            .map((b) => (textOf(b) ?? '').slice(FOLD_PREFIX.length, -'</system>'.length)),
        );
        if (turns.some((t) => t.role === 'user')) {
          expect(folded).toEqual(systemTexts);
        } else if (systemTexts.length > 0) {
          expect(view(result.body).system.slice(1).map((b) => b.text)).toEqual(systemTexts);
        }
      }),
    );
  });

  /**
   * Append-only: A starts with a user turn, B = A ++ C, and each system
   * message in C has its nearest preceding user turn either in C or as A's
   * last user turn with nothing but system turns after it (what Claude Code
   * does: a system message always follows a user turn). Then, with
   * cache_control removed and string content as one text block,
   * JSON({system, messages}) of normalised A minus its closing `]}]}` is a
   * prefix of the same for normalised B: same system, earlier messages
   * identical, A's last message extended only by appended blocks.
   * messages[1] is never the first thing C adds: Claude Code sends the
   * environment block there from the first request on, and the fold puts that
   * one message first in messages[0] (so a request without it is not a prefix).
   */
  it('is append-only: normalised(A ++ C) extends normalised(A)', () => {
    fc.assert(
      fc.property(userTurn, fc.array(turn, { maxLength: 6 }), fc.array(turn, { maxLength: 6 }), (first, restA, c) => {
        fc.pre(!(restA.length === 0 && c[0]?.role === 'system'));
        const a = [first, ...restA];
        const lastUser = a.map((t) => t.role).lastIndexOf('user');
        const aEndsInUserTurn = a.slice(lastUser + 1).every((t) => t.role === 'system');
        const firstSystemInC = c.findIndex((t) => t.role === 'system');
        const firstUserInC = c.findIndex((t) => t.role === 'user');
        const cFoldsBack = firstSystemInC >= 0 && (firstUserInC < 0 || firstSystemInC < firstUserInC);
        // A system text folded back into a tool-result turn goes inside its last result (tool-turn-text.ts): the JSON then
        // differs inside that result, while the rendered prompt still shares everything up to the result's own text.
        fc.pre(!(aEndsInUserTurn && cFoldsBack && (a[lastUser]?.blocks ?? []).some((b) => b.type === 'tool_result')));
        const tail = !aEndsInUserTurn && cFoldsBack ? [{ role: 'user' as const, blocks: [{ type: 'text', text: 'next' }] }, ...c] : c;

        const canon = (turns: Turn[]): string => {
          const result = normaliseRequest(body(render(turns)), OPTS);
          const messages = outMessages(result).map((m) => ({ ...m, content: blocksOf(m.content) }));
          return JSON.stringify(withoutCacheControl({ system: view(result.body).system, messages }));
        };
        const sa = canon(a);
        const sb = canon([...a, ...tail]);
        expect(sa.endsWith(']}]}')).toBe(true);
        expect(sb.startsWith(sa.slice(0, -4))).toBe(true);
      }),
    );
  });

  it('is idempotent: normalising the result again changes nothing and returns the same object', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 8 }), fc.constantFrom('', ' cch=ab12f;', ' cch=00000;'), (turns, cch) => {
        const input = body(render(turns));
        input.system = [{ type: 'text', text: `x-anthropic-billing-header: cc_version=2.1.332.4e6;${cch}` }];
        const once = normaliseRequest(input, OPTS);
        const twice = normaliseRequest(once.body, OPTS);
        expect(twice.changed).toBe(false);
        expect(twice.body).toBe(once.body);
      }),
    );
  });

  it('never throws and never mutates its input, whatever the body and numbers', () => {
    const oddMessage = fc.oneof(
      fc.jsonValue(),
      fc.record({ role: fc.constantFrom('user', 'assistant', 'system', 'tool'), content: fc.jsonValue() }, { requiredKeys: [] }),
      fc.record({ role: fc.constant('system'), content: fc.array(fc.oneof(textBlock, fc.jsonValue())) }),
    );
    const oddBody = fc.oneof(
      fc.jsonValue(),
      fc.record(
        { model: fc.jsonValue(), system: fc.jsonValue(), messages: fc.array(oddMessage, { maxLength: 6 }), max_tokens: fc.oneof(fc.integer(), fc.jsonValue()) },
        { requiredKeys: [] },
      ),
    );
    const num = fc.oneof(fc.integer(), fc.double(), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(oddBody, fc.string(), num, num, fc.boolean(), (input, servedModel, window, promptTokens, enforce) => {
        const before = JSON.stringify(input);
        normaliseRequest(input, { servedModel, maxTokens: { window, promptTokens, enforce }, stripFields: ['metadata'] });
        expect(JSON.stringify(input)).toBe(before);
      }),
    );
    fc.assert(fc.property(fc.anything(), (input) => void normaliseRequest(input, OPTS)));
  });
});
