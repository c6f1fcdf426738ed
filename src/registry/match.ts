/**
 * How a requested model name matches a served id: exactly, as a glob, or
 * fuzzily (`qwen3.8-27b` finds `unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL`).
 *
 * Globs come from tool calls and config files, so they are matched without a
 * regular expression: a backtracking regex turns `**********x` into seconds of
 * blocked event loop (every job's shim runs on that thread). The matcher below
 * backtracks only to the last `*`, which bounds it by pattern × id length.
 */

export type MatchKind = 'exact' | 'glob' | 'fuzzy';

const GLOB_CHARS = /[*?[]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** One pattern position; everything but `*` matches exactly one character. */
type Token =
  | { readonly kind: 'star' }
  | { readonly kind: 'one'; readonly test: (ch: string) => boolean };

function compileClass(body: string): (ch: string) => boolean {
  const negate = body.startsWith('!') || body.startsWith('^');
  const members = (negate ? body.slice(1) : body).toLowerCase();
  const singles = new Set<string>();
  const ranges: Array<readonly [string, string]> = [];
  for (let i = 0; i < members.length; i++) {
    const from = members.charAt(i);
    if (members.charAt(i + 1) === '-' && i + 2 < members.length) {
      ranges.push([from, members.charAt(i + 2)]);
      i += 2;
    } else singles.add(from);
  }
  return (ch) => (singles.has(ch) || ranges.some(([lo, hi]) => ch >= lo && ch <= hi)) !== negate;
}

function compile(pattern: string): Token[] {
  const tokens: Token[] = [];
  const lower = pattern.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    const ch = lower.charAt(i);
    if (ch === '*') {
      // `**` means the same as `*`; one token keeps the backtracking single.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (ch === '?') tokens.push({ kind: 'one', test: () => true });
    else if (ch === '[' && lower.indexOf(']', i + 2) !== -1) {
      // `[]abc]` keeps its first `]` as a member, as in shell globs.
      const end = lower.indexOf(']', i + 2);
      tokens.push({ kind: 'one', test: compileClass(pattern.slice(i + 1, end)) });
      i = end;
    } else tokens.push({ kind: 'one', test: (c) => c === ch });
  }
  return tokens;
}

/**
 * Case-insensitive glob: `*` any run, `?` one character, `[abc]`, `[a-z]`,
 * `[!abc]` a class. Time is at most pattern length × id length.
 */
export function globMatcher(pattern: string): (id: string) => boolean {
  const tokens = compile(pattern);
  return (id) => {
    const text = id.toLowerCase();
    let t = 0;
    let p = 0;
    // Where to resume after the last `*`: the pattern position after it, and how much of the text it has taken.
    let starP = -1;
    let starT = 0;
    while (t < text.length) {
      const token = tokens[p];
      if (token?.kind === 'one' && token.test(text.charAt(t))) {
        p++;
        t++;
      } else if (token?.kind === 'star') {
        starP = ++p;
        starT = t;
      } else if (starP !== -1) {
        p = starP;
        t = ++starT;
      } else return false;
    }
    while (tokens[p]?.kind === 'star') p++;
    return p === tokens.length;
  };
}

/** Lower-case letters and digits only: what people mean when they type a model name. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The best way `requested` matches one of `ids` (an id plus its aliases), or undefined. */
export function matchName(requested: string, ids: readonly string[]): MatchKind | undefined {
  if (ids.includes(requested)) return 'exact';
  if (isGlob(requested)) {
    const matches = globMatcher(requested);
    return ids.some(matches) ? 'glob' : undefined;
  }
  const folded = foldName(requested);
  if (folded === '') return undefined;
  return ids.some((id) => foldName(id).includes(folded)) ? 'fuzzy' : undefined;
}

export const MATCH_RANK: Record<MatchKind, number> = { exact: 0, glob: 1, fuzzy: 2 };
