/**
 * Access tokens of the local front doors (dashboard URL, MCP HTTP bearer): 256 random bits,
 * compared in constant time so no response time says how close a guess was.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 bytes = 256 bits, well above the 128 the page needs to be unguessable. */
export const TOKEN_BYTES = 32;

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** True only for the exact token. Digests first: equal lengths for timingSafeEqual, and the length stays secret. */
export function tokenMatches(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
