/** The dashboard token: unguessable, and only the exact string opens the page. */
import { describe, expect, it } from 'vitest';
import { newToken, tokenMatches } from '../../src/net/token.js';

describe('dashboard token', () => {
  it('carries at least 128 random bits and differs on every start', () => {
    const tokens = new Set(Array.from({ length: 50 }, newToken));
    expect(tokens.size).toBe(50);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/); // safe in a URL as is
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
  });

  it('accepts the exact token and nothing else', () => {
    const token = newToken();
    expect(tokenMatches(token, token)).toBe(true);
    for (const wrong of [token.slice(0, -1), `${token}x`, token.toUpperCase(), ` ${token}`, newToken(), '', null, undefined]) {
      expect(tokenMatches(wrong, token)).toBe(false);
    }
  });
});
