/**
 * Checks one config file (models.yaml or models.local.yaml) against the schema
 * and turns every zod issue into a ConfigIssue with the file, the line and the
 * key path, worded for a person. Checks that need both files (a model naming an
 * endpoint) or the environment (api_key_env) live in load.ts.
 */
import { z } from 'zod';
import { configFileSchema, type ConfigFile } from './schema.js';
import { closestMatch } from './closest-match.js';
import { describeExpected, describeValue, objectShape, quote, schemaAt, unwrapSchema } from './describe-schema.js';
import { formatKeyPath, type ConfigIssue, type KeyPath } from './format-issues.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

export interface ValidatedFile {
  readonly source: YamlSource;
  /** The file with schema defaults applied; undefined when `issues` is non-empty. */
  readonly config: ConfigFile | undefined;
  /** `defaults:` exactly as written (no schema defaults), so a sidecar can override it key by key. */
  readonly writtenDefaults: Readonly<Record<string, unknown>>;
  readonly issues: ConfigIssue[];
}

const SECTIONS = ['endpoints', 'models', 'defaults', 'agents'] as const;

/** Marks zod's stock messages, which we replace with our own wording; schema-authored messages pass through. */
const STOCK = '\u0000stock';
const REWORDED = new Set(['invalid_type', 'too_small', 'too_big', 'invalid_value', 'unrecognized_keys']);

export function validateConfigText(file: string, text: string): ValidatedFile {
  const source = parseYamlSource(file, text);
  const empty = { source, config: undefined, writtenDefaults: {} };
  if (source.issues.length > 0) return { ...empty, issues: source.issues };
  const data = source.data;
  if (data === undefined || data === null) return { ...empty, config: configFileSchema.parse({}), issues: [] };
  if (!isPlainObject(data)) {
    const issue = { file, line: source.lineAt([]), key: undefined };
    return { ...empty, issues: [{ ...issue, message: `expected a mapping at the top level (endpoints:, models:, defaults:), got ${describeValue(data)}` }] };
  }
  // `endpoints:` with nothing under it is a section the user has not filled yet, not an error.
  const normalised: Record<string, unknown> = { ...data };
  for (const section of SECTIONS) if (normalised[section] === null) delete normalised[section];

  const issues = schemaIssues(file, normalised, (path) => source.lineAt(path));
  const defaults = normalised['defaults'];
  const writtenDefaults = isPlainObject(defaults) ? defaults : {};
  if (issues.length > 0) return { ...empty, writtenDefaults, issues };
  return { source, config: configFileSchema.parse(normalised), writtenDefaults, issues };
}

/**
 * Schema problems in already-parsed data shaped like a config file. `lineAt`
 * places each problem; the sidecar writer passes one that knows no lines.
 */
export function schemaIssues(file: string, data: unknown, lineAt: (path: KeyPath) => number | undefined): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const at = (path: KeyPath, message: string): void => {
    issues.push({ file, line: lineAt(path), key: formatKeyPath(path), message });
  };
  const result = configFileSchema.safeParse(data, { error: (iss) => (REWORDED.has(iss.code ?? '') ? STOCK : undefined) });
  for (const issue of result.success ? [] : result.error.issues) {
    const path: KeyPath = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    for (const [subPath, message] of reword(issue, path, data)) at(subPath, message);
  }
  for (const [path, message] of crossFieldIssues(data)) at(path, message);
  return issues;
}

/** One zod issue as [path, message] pairs (an unrecognized_keys issue becomes one per key). */
function reword(issue: z.core.$ZodIssue, path: KeyPath, data: unknown): [KeyPath, string][] {
  const value = valueAt(data, path);
  const schema = schemaAt(configFileSchema, path);
  if (issue.code === 'unrecognized_keys') {
    const parent = schema === undefined ? undefined : unwrapSchema(schema);
    const known = parent instanceof z.ZodObject ? Object.keys(objectShape(parent)) : [];
    return issue.keys.map((key) => {
      const guess = closestMatch(key, known);
      const hint = guess === undefined ? `expected one of ${known.join(', ')}` : `did you mean ${guess}?`;
      return [[...path, key], `unknown key — ${hint}`];
    });
  }
  if (issue.message !== STOCK) {
    const got = issue.code === 'invalid_type' ? `; got ${describeValue(value)}` : '';
    return [[path, issue.message + got]];
  }
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return [[path, `required key is missing — expected ${describeExpected(schema)}`]];
      return [[path, `expected ${describeExpected(schema)}, got ${describeValue(value)}`]];
    case 'too_small':
    case 'too_big':
      if (typeof value === 'number') return [[path, `expected ${describeExpected(schema, true)}, got ${value}`]];
      if (issue.code === 'too_small' && Number(issue.minimum) === 1) return [[path, 'must not be empty']];
      return [[path, `must have ${issue.code === 'too_small' ? 'at least' : 'at most'} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)} ${issue.origin === 'string' ? 'characters' : 'items'}`]];
    case 'invalid_value': {
      const allowed = issue.values.filter((v): v is string => typeof v === 'string');
      const guess = typeof value === 'string' ? closestMatch(value, allowed) : undefined;
      const hint = guess === undefined ? '' : ` — did you mean ${quote(guess)}?`;
      return [[path, `expected ${describeExpected(schema)}, got ${describeValue(value)}${hint}`]];
    }
    default:
      return [[path, issue.message]];
  }
}

/** Rules that span two keys of one entry, which the per-key schema cannot express. */
/** Names JavaScript objects treat specially: zod's record parsing drops them without a word. */
const RESERVED_NAMES = ['__proto__', 'constructor', 'prototype'];

function crossFieldIssues(data: unknown): [KeyPath, string][] {
  const out: [KeyPath, string][] = [];
  for (const section of ['endpoints', 'models', 'agents'] as const) {
    const entries = isPlainObject(data) ? data[section] : undefined;
    if (!isPlainObject(entries)) continue;
    for (const name of RESERVED_NAMES) {
      if (Object.hasOwn(entries, name)) out.push([[section, name], `"${name}" cannot be used as a name; pick another`]);
    }
  }
  const endpoints = isPlainObject(data) ? data['endpoints'] : undefined;
  if (!isPlainObject(endpoints)) return out;
  for (const [name, entry] of Object.entries(endpoints)) {
    if (!isPlainObject(entry)) continue;
    if (entry['api_key'] !== undefined && entry['api_key_env'] !== undefined) {
      out.push([
        ['endpoints', name, 'api_key_env'],
        'api_key and api_key_env are both set; keep one (api_key_env keeps the key out of this file)',
      ]);
    }
  }
  return out;
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let node = data;
  for (const segment of path) {
    if (Array.isArray(node) && typeof segment === 'number') node = node[segment] as unknown;
    else if (isPlainObject(node)) node = node[String(segment)];
    else return undefined;
  }
  return node;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
