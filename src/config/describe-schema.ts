/**
 * Plain-English descriptions of what the config schema expects at a key path
 * ("an integer from 1 to 256", "one of \"llama.cpp\", \"vllm\", \"other\"") and of
 * what the user wrote instead, plus the closest-name suggestion for typos.
 * Reads the zod schema; never changes it.
 */
import { z } from 'zod';
import { baseUrl } from './schema.js';
import type { KeyPath } from './format-issues.js';

/** Strip wrappers that do not change what the user must write. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType; // unwrap() is typed loosely as the inner core type
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType; // the input side is what the user writes
    else return s;
  }
}

/** The schema that governs the value at `path`, or undefined when the path leaves the schema. */
export function schemaAt(root: z.ZodType, path: KeyPath): z.ZodType | undefined {
  let s: z.ZodType | undefined = root;
  for (const segment of path) {
    if (s === undefined) return undefined;
    const inner = unwrapSchema(s);
    if (inner instanceof z.ZodObject) s = objectShape(inner)[String(segment)];
    else if (inner instanceof z.ZodRecord) s = inner.valueType as z.ZodType; // valueType is typed as the core type
    else if (inner instanceof z.ZodArray) s = inner.element as z.ZodType; // likewise
    else return undefined;
  }
  return s;
}

/** The keys an object schema accepts, in declaration order. */
export function objectShape(schema: z.ZodObject): Readonly<Record<string, z.ZodType | undefined>> {
  const shape: Readonly<Record<string, z.ZodType | undefined>> = schema.shape;
  return shape;
}

function isRequired(schema: z.ZodType): boolean {
  return !(schema instanceof z.ZodOptional || schema instanceof z.ZodDefault);
}

function numberKind(schema: z.ZodNumber): string {
  return schema.isInt ? 'an integer' : 'a number';
}

function numberRange(schema: z.ZodNumber): string {
  const min = schema.minValue;
  const max = schema.maxValue;
  const hasMin = min !== null && Number.isFinite(min) && Math.abs(min) < Number.MAX_SAFE_INTEGER;
  const hasMax = max !== null && Number.isFinite(max) && Math.abs(max) < Number.MAX_SAFE_INTEGER;
  if (hasMin && hasMax) return ` from ${min} to ${max}`;
  if (hasMin) return ` of at least ${min}`;
  if (hasMax) return ` of at most ${max}`;
  return '';
}

/**
 * What the user must write, e.g. "an integer" or, with `withRange`, "an integer from 1 to 256".
 * Kept short: it follows "expected".
 */
export function describeExpected(schema: z.ZodType | undefined, withRange = false): string {
  if (schema === undefined) return 'nothing here';
  if (schema === baseUrl) return 'an http:// or https:// URL such as http://gpu-box:8080';
  const s = unwrapSchema(schema);
  if (s instanceof z.ZodNumber) return numberKind(s) + (withRange ? numberRange(s) : '');
  if (s instanceof z.ZodString) return 'a string';
  if (s instanceof z.ZodBoolean) return 'true or false';
  if (s instanceof z.ZodEnum) return `one of ${s.options.map((o) => JSON.stringify(o)).join(', ')}`;
  if (s instanceof z.ZodArray) {
    const element = unwrapSchema(s.element as z.ZodType); // element is typed as the core type
    if (element instanceof z.ZodString) return 'a list of strings';
    return `a list whose items are each ${describeExpected(element)}`;
  }
  if (s instanceof z.ZodRecord) {
    const value = unwrapSchema(s.valueType as z.ZodType); // valueType is typed as the core type
    return value instanceof z.ZodString ? 'a mapping of names to strings' : 'a mapping of names to entries';
  }
  if (s instanceof z.ZodObject) {
    const required = Object.entries(objectShape(s))
      .filter(([, v]) => v !== undefined && isRequired(v))
      .map(([k]) => k);
    return required.length === 0 ? 'a mapping' : `a mapping with ${required.join(', ')}`;
  }
  return 'a different value';
}

/** What the user wrote, for "got …": `string "four"`, `number 3`, `a list`, `an empty value`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `string ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** A value quoted for a message, shortened so a pasted blob does not flood the error. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

