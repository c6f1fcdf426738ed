/** The live display's redraw: what bytes reach the terminal, and that no status line can wrap. */
import { describe, expect, it } from 'vitest';
import { createStatusArea, fitLine, redraw } from '../../src/cli/follow/status-area.js';

describe('redraw', () => {
  it('first draw: no erase, every line ends in a newline', () => {
    expect(redraw(0, [], ['a', 'b'], 80)).toBe('a\nb\n');
  });

  it('later draws move up over the old area, erase it, print log lines, then the new area', () => {
    expect(redraw(3, ['11:00:01 tool: Bash ls'], ['x', 'y'], 80)).toBe('\x1b[3F\x1b[J11:00:01 tool: Bash ls\nx\ny\n');
  });

  it('clips status lines, never the lines above them (those scroll away and may wrap)', () => {
    const long = 'y'.repeat(50);
    const out = redraw(0, [long], [long], 20);
    expect(out).toBe(`${long}\n${'y'.repeat(18)}…\n`);
  });

  it('clips to one less than the width so the terminal never wraps a status line', () => {
    const line = fitLine('z'.repeat(200), 40);
    expect(line).toHaveLength(39);
    expect(line.endsWith('…')).toBe(true);
    expect(fitLine('short', 40)).toBe('short');
  });
});

describe('createStatusArea', () => {
  it('erases exactly the lines it drew last time, and clear() leaves nothing behind', () => {
    const out: string[] = [];
    const area = createStatusArea((t) => out.push(t), () => 80);
    area.draw([], ['one', 'two', 'three']);
    area.draw(['log'], ['one']);
    area.clear();
    expect(out).toEqual(['one\ntwo\nthree\n', '\x1b[3F\x1b[Jlog\none\n', '\x1b[1F\x1b[J']);
  });
});
