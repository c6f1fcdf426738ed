/**
 * What every tool's arguments share. A tool call may be prompt-injected or
 * just mistyped, and a typo in a safety option (`isolaton`, `permision_mode`)
 * silently ignored is a setting the caller believes is on: so every tool takes
 * a strict object and an unknown key is refused naming the closest valid one.
 * Names of the original Python tools are listed keys (synonyms), not unknown.
 *
 * Numbers with a soft limit (waits, line counts) accept any value and are
 * lowered to the limit, saying so in the result, because the original took
 * them and a caller cannot know our caps.
 */
import { z } from 'zod';
import { closestMatch } from '../../config/closest-match.js';
import { shorten } from '../tool-result.js';

/** The refusal of unknown argument names, with a did-you-mean when one is close. */
export function unknownArgumentsMessage(tool: string, keys: readonly string[], known: readonly string[]): string {
  const parts = keys.slice(0, 5).map((key) => {
    const guess = key.length > 100 ? undefined : (closestMatch(key, known) ?? known.find((k) => key.length >= 3 && k.startsWith(key)));
    return `unknown argument ${JSON.stringify(shorten(key, 60))}${guess === undefined ? '' : ` — did you mean ${guess}?`}`;
  });
  if (keys.length > 5) parts.push(`and ${keys.length - 5} more unknown arguments`);
  return `${parts.join('; ')}. ${tool} takes: ${known.join(', ')}`;
}

/** `null` read as "not given"; other values checked by the field as they are (its own error messages). */
function nullAsAbsent<T extends z.ZodType>(field: T): z.ZodPipe<z.ZodNullable<T>, z.ZodTransform<Exclude<z.output<T>, null>, z.output<T> | null>> {
  return field.nullable().transform((value) => (value ?? undefined) as Exclude<z.output<T>, null>);
}

/**
 * An optional argument also takes null, meaning "not given": the original's
 * schema offered `anyOf: [T, null]` for every optional argument, so callers send it.
 */
type NullTolerant<Shape extends z.ZodRawShape> = {
  [K in keyof Shape]: undefined extends z.input<Shape[K]> ? ReturnType<typeof nullAsAbsent<Shape[K] & z.ZodType>> : Shape[K];
};

/** A tool's input schema: the shape as a strict object whose unknown-key error names the tool's real arguments. */
export function toolInput<Shape extends z.ZodRawShape>(tool: string, shape: Shape): z.ZodObject<NullTolerant<Shape>, z.core.$strict> {
  const known = Object.keys(shape);
  const tolerant = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, field instanceof z.ZodType && field.safeParse(undefined).success ? nullAsAbsent(field) : field]),
  ) as NullTolerant<Shape>;
  const schema = z.strictObject(tolerant, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownArgumentsMessage(tool, issue.keys, known) : undefined),
  });
  // What the caller's model reads on every request: the same arguments, without what only a misbehaving caller meets.
  const advertised = compactSchema(z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }));
  // A fresh copy each time: the converter writes into what it is handed.
  schema._zod.toJSONSchema = () => structuredClone(advertised);
  return schema;
}

/** Limits the model never needs to read (refusals name them in words when a call breaks one). */
const UNADVERTISED = new Set(['$schema', 'maxLength', 'minLength', 'maxItems', 'minItems']);

/**
 * The advertised input schema, smaller: an optional argument's "or null" (accepted, never worth offering) and
 * size limits are left out. The strict object still checks every call against the full schema.
 */
export function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  const anyOf = record['anyOf'];
  if (Array.isArray(anyOf)) {
    const kept = anyOf.filter((branch) => !(typeof branch === 'object' && branch !== null && (branch as Record<string, unknown>)['type'] === 'null'));
    if (kept.length === 1 && kept.length < anyOf.length) {
      const { anyOf: _dropped, ...rest } = record;
      return compactSchema({ ...(kept[0] as Record<string, unknown>), ...rest });
    }
  }
  const type: unknown = record['type'];
  const nullable = Array.isArray(type) && type.length === 2 && type.includes('null');
  const entries = Object.entries(record)
    .filter(([key]) => !UNADVERTISED.has(key))
    .map(([key, value]): [string, unknown] => [key, key === 'type' && nullable ? (type as unknown[]).find((t) => t !== 'null') : compactSchema(value)]);
  return Object.fromEntries(entries);
}

/** A limit lowered for this call, reported to the caller. */
export interface LimitApplied {
  readonly argument: string;
  readonly asked: number;
  readonly used: number;
  readonly why: string;
}

/** `asked` (or `fallback`) no higher than `cap`; a note when it was lowered. */
export function softCap(argument: string, asked: number | undefined, fallback: number, cap: number, why: string): { value: number; applied?: LimitApplied } {
  const value = asked ?? fallback;
  if (value <= cap) return { value };
  return { value: cap, applied: { argument, asked: value, used: cap, why } };
}

/** One line per lowered limit, for the text the caller reads. */
export function limitLines(applied: readonly (LimitApplied | undefined)[]): string[] {
  return applied.filter((a) => a !== undefined).map((a) => `note: ${a.argument}=${a.asked} was lowered to ${a.used}: ${a.why}`);
}

/** The structured part: `limits_applied` only when something was lowered. */
export function limitsField(applied: readonly (LimitApplied | undefined)[]): { limits_applied?: LimitApplied[] } {
  const list = applied.filter((a) => a !== undefined);
  return list.length === 0 ? {} : { limits_applied: list };
}

/** The longest limit a wait takes: a job runs at most one day, so a longer wait waits no longer. */
export const MAX_WAIT_S = 86_400;
export const WAIT_CAP_WHY = 'a job runs at most one day';

/** A wait limit in seconds, for clients whose tool calls time out. */
export const waitSeconds = (what: string): z.ZodNumber => z.number().min(0).describe(what);

/** A whole number of at least `min`, advertised as a plain number: `.int()` adds a 16-digit maximum to every schema the caller's model reads. */
export const wholeNumber = (min: number): z.ZodNumber => z.number().min(min).refine(Number.isInteger, { message: 'must be a whole number' });
