/**
 * Text from outside (a model server, a repository) on its way to a terminal or
 * into a config file. A terminal obeys control characters — ESC sequences
 * retitle the window, move the cursor or rewrite a line, a newline forges a
 * line of our own output, bidi controls reorder what the eye reads — so such
 * text is either refused (isPrintableLine, for values we store) or shown with
 * those characters escaped (printable, for values we only show).
 */

/** C0 and C1 controls, DEL, line/paragraph separators, bidi and zero-width format characters, byte-order mark. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
const UNPRINTABLE_ONE = new RegExp(UNPRINTABLE.source, 'u');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeUnprintable(text: string, keep: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    if (keep.includes(c)) return c;
    const code = c.codePointAt(0) ?? 0;
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/** `text` with every unprintable character written as an escape (`\n`, `\x1b`, `\u202e`), so it shows as one inert line. */
export const printable = (text: string): string => escapeUnprintable(text, '');

/** Like `printable`, but a text of several lines keeps its newlines and tabs (a job's result, a report). */
export const printableLines = (text: string): string => escapeUnprintable(text, '\n\t');

/** A value fit to store: non-empty, at most `maxChars` characters, no unprintable character, no leading or trailing space. */
export function isPrintableLine(text: string, maxChars: number): boolean {
  return text.length > 0 && text.length <= maxChars && text.trim() === text && !UNPRINTABLE_ONE.test(text);
}
