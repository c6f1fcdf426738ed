/**
 * Checking parsed JSON against a shape: the small part of JSON Schema that
 * `z.toJSONSchema` writes for our state-file schemas (type, properties,
 * required, enum, items, additionalProperties, anyOf, number bounds). Read paths
 * that start a process for one line of output (`localagents statusline`, `jobs`,
 * `show`, `usage`) check state files with it instead of loading zod, which alone
 * costs more than a bare Node start (BENCHMARKS.md, part 9). Like zod's parse, it
 * drops properties the shape does not name (unless it allows extra ones), and says
 * what is wrong in zod's words, at the first wrong path.
 */

type ShapeType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface Shape {
  /** A list: any of them (what `z.toJSONSchema` writes for `.nullable()`). */
  readonly type?: ShapeType | readonly ShapeType[];
  readonly properties?: Readonly<Record<string, Shape>>;
  readonly required?: readonly string[];
  /** A shape: every other property must fit it; `{}` or true: kept unchecked; absent: dropped. */
  readonly additionalProperties?: Shape | boolean;
  readonly propertyNames?: Shape;
  readonly items?: Shape;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly anyOf?: readonly Shape[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
}

export type ShapeCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** Thrown from deep in the walk to its top, where it becomes the `problem`. */
class Mismatch extends Error {
  constructor(
    readonly path: readonly (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** The type named in a mismatch, as zod names it (a nullable number: "number"). */
function typeWord(type: ShapeType | readonly ShapeType[]): string {
  const named = typeof type === 'string' ? type : (type.find((t) => t !== 'null') ?? 'null');
  return named === 'integer' ? 'int' : named;
}

function fitsAny(value: unknown, type: ShapeType | readonly ShapeType[]): boolean {
  return typeof type === 'string' ? fits(value, type) : type.some((t) => fits(value, t));
}

function fits(value: unknown, type: ShapeType): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

function check(value: unknown, shape: Shape, path: (string | number)[]): unknown {
  if (shape.anyOf !== undefined) {
    for (const option of shape.anyOf) {
      try {
        return check(value, option, path);
      } catch (err) {
        if (!(err instanceof Mismatch)) throw err;
      }
    }
    throw new Mismatch(path, 'Invalid input');
  }
  if (shape.enum !== undefined && !shape.enum.includes(value as string)) {
    throw new Mismatch(path, `Invalid option: expected one of ${shape.enum.map((v) => JSON.stringify(v)).join('|')}`);
  }
  if (shape.type !== undefined && !fitsAny(value, shape.type)) {
    throw new Mismatch(path, `Invalid input: expected ${typeWord(shape.type)}, received ${kindOf(value)}`);
  }
  if (typeof value === 'number') {
    if (shape.minimum !== undefined && value < shape.minimum) throw new Mismatch(path, `Too small: expected number to be >=${shape.minimum}`);
    if (shape.exclusiveMinimum !== undefined && value <= shape.exclusiveMinimum) throw new Mismatch(path, `Too small: expected number to be >${shape.exclusiveMinimum}`);
    if (shape.maximum !== undefined && value > shape.maximum) throw new Mismatch(path, `Too big: expected number to be <=${shape.maximum}`);
  }
  if (Array.isArray(value) && shape.items !== undefined) {
    const items = shape.items;
    return value.map((item, i) => check(item, items, [...path, i]));
  }
  const objectShape = shape.type === 'object' || (Array.isArray(shape.type) && shape.type.includes('object'));
  if (objectShape && fits(value, 'object')) return checkObject(value as Record<string, unknown>, shape, path);
  return value;
}

function checkObject(value: Record<string, unknown>, shape: Shape, path: (string | number)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = shape.properties ?? {};
  for (const key of shape.required ?? []) {
    if (!Object.hasOwn(value, key)) {
      const wanted = properties[key]?.type;
      throw new Mismatch([...path, key], `Invalid input: expected ${wanted === undefined ? 'a value' : typeWord(wanted)}, received undefined`);
    }
  }
  for (const [key, item] of Object.entries(value)) {
    // Assigning it would set the copy's prototype; no state file of ours has such a key.
    if (key === '__proto__') continue;
    const known = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (known !== undefined) {
      out[key] = check(item, known, [...path, key]);
      continue;
    }
    const extra = shape.additionalProperties;
    if (extra === undefined || extra === false) continue;
    if (shape.propertyNames !== undefined) check(key, shape.propertyNames, [...path, key]);
    out[key] = extra === true ? item : check(item, extra, [...path, key]);
  }
  return out;
}

/** `value` as the shape allows it, or the first problem as `path.to.key: message`. */
export function checkShape<T>(value: unknown, shape: Shape): ShapeCheck<T> {
  try {
    return { ok: true, value: check(value, shape, []) as T };
  } catch (err) {
    if (!(err instanceof Mismatch)) throw err;
    return { ok: false, problem: `${err.path.length > 0 ? `${err.path.join('.')}: ` : ''}${err.message}` };
  }
}
