/**
 * Notices a model repeating itself: the same short run of words (or, for text
 * without spaces, of characters) filling most of the recent output. Linear in
 * the window it looks at; fed incrementally as the stream passes.
 *
 * Why: a model stuck in a loop ("I will now read the file. I will now read the
 * file. …") keeps a slot busy until max_tokens; the person watching should
 * hear about it long before that (a flag, never a kill).
 */

/** Recent output kept: enough for a few hundred words. */
const WINDOW_CHARS = 4000;
/** Re-check after this much new text (the check costs one pass over the window). */
const CHECK_EVERY_CHARS = 400;
const WORD_GRAM = 3;
const CHAR_GRAM = 12;
/** A position counts as repeated when its n-gram occurs at least this often in the window … */
const MIN_REPEATS = 5;
/** … and the output is repetitive when this share of positions is repeated. */
const MIN_SHARE = 0.8;

export interface RepetitionDetector {
  push(text: string): void;
  /** The repeated n-gram once the recent output is mostly that, else undefined. */
  readonly repeated: string | undefined;
}

/**
 * The most frequent n-gram of `units` when at least MIN_SHARE of all positions
 * start an n-gram that occurs MIN_REPEATS times or more (a loop of any length
 * up to a fifth of the window), else undefined.
 */
function repeatedGram(units: readonly string[], n: number, sep: string): string | undefined {
  const grams: string[] = [];
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= units.length; i++) {
    const gram = units.slice(i, i + n).join(sep);
    grams.push(gram);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  let repeated = 0;
  let best = { gram: '', count: 0 };
  for (const gram of grams) {
    const count = counts.get(gram) ?? 0;
    if (count >= MIN_REPEATS) repeated++;
    if (count > best.count) best = { gram, count };
  }
  return grams.length > 0 && repeated >= grams.length * MIN_SHARE ? best.gram : undefined;
}

/** Repetition in `text`: word trigrams when it has words, character 12-grams otherwise. */
export function findRepetition(text: string): string | undefined {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length >= 40) return repeatedGram(words, WORD_GRAM, ' ');
  const chars = Array.from(text.replace(/\s+/g, ' '));
  return chars.length >= 400 ? repeatedGram(chars, CHAR_GRAM, '') : undefined;
}

export function createRepetitionDetector(): RepetitionDetector {
  let tail = '';
  let sinceCheck = 0;
  let repeated: string | undefined;
  return {
    push(text) {
      if (text === '') return;
      tail = (tail + text).slice(-WINDOW_CHARS);
      sinceCheck += text.length;
      if (sinceCheck < CHECK_EVERY_CHARS) return;
      sinceCheck = 0;
      repeated = findRepetition(tail);
    },
    get repeated() {
      return repeated;
    },
  };
}
