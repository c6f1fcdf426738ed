/**
 * ANSI redraw of a few status lines at the bottom of the terminal, with log
 * lines scrolling above them (as cargo or docker do). Status lines are clipped
 * to the width so none wraps: a wrapped line would throw off the count to move up by.
 */

export const HIDE_CURSOR = '\x1b[?25l';
export const SHOW_CURSOR = '\x1b[?25h';

/** Cuts a line to `columns - 1` characters (the last column would make some terminals wrap). */
export function fitLine(line: string, columns: number): string {
  const max = Math.max(10, columns - 1);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * The bytes that erase the previous status area (`previous` lines, cursor below it),
 * print `above` as ordinary scrolling lines (they may wrap: nothing moves back over
 * them), then draw `status`, clipped.
 */
export function redraw(previous: number, above: readonly string[], status: readonly string[], columns: number): string {
  // CSI n F: to the start of the line n lines up; CSI J: erase from there to the end of the screen.
  const erase = previous > 0 ? `\x1b[${previous}F\x1b[J` : '';
  return erase + above.map((l) => `${l}\n`).join('') + status.map((l) => `${fitLine(l, columns)}\n`).join('');
}

export interface StatusArea {
  /** Prints `above` (may be empty) and redraws the status lines under it. */
  draw(above: readonly string[], status: readonly string[]): void;
  /** Removes the status area, leaving the cursor where it began. */
  clear(): void;
}

export function createStatusArea(write: (text: string) => void, columns: () => number): StatusArea {
  let drawn = 0;
  return {
    draw(above, status) {
      write(redraw(drawn, above, status, columns()));
      drawn = status.length;
    },
    clear() {
      write(redraw(drawn, [], [], columns()));
      drawn = 0;
    },
  };
}
