/**
 * How a requested model name matches a served id: exactly, as a glob, or
 * fuzzily (`qwen3.8-27b` finds `unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL`).
 */

export type MatchKind = 'exact' | 'glob' | 'fuzzy';

const GLOB_CHARS = /[*?[]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** Case-insensitive glob: `*` any run, `?` one char, `[abc]` a class. */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern.charAt(i);
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        source += `[${pattern.slice(i + 1, end).replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

/** Lower-case letters and digits only: what people mean when they type a model name. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The best way `requested` matches one of `ids` (an id plus its aliases), or undefined. */
export function matchName(requested: string, ids: readonly string[]): MatchKind | undefined {
  if (ids.includes(requested)) return 'exact';
  if (isGlob(requested)) {
    const re = globToRegExp(requested);
    return ids.some((id) => re.test(id)) ? 'glob' : undefined;
  }
  const folded = foldName(requested);
  if (folded === '') return undefined;
  return ids.some((id) => foldName(id).includes(folded)) ? 'fuzzy' : undefined;
}

export const MATCH_RANK: Record<MatchKind, number> = { exact: 0, glob: 1, fuzzy: 2 };
