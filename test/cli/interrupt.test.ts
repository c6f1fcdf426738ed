/** What each key means after Ctrl-C under `localagents run`. */
import { describe, expect, it } from 'vitest';
import { choiceOf } from '../../src/cli/follow/interrupt.js';

describe('choiceOf', () => {
  it.each([
    ['c', 'cancel'],
    ['C', 'cancel'],
    ['\x03', 'cancel'], // a second Ctrl-C (raw mode delivers it as a byte)
    ['d', 'detach'],
    ['D', 'detach'],
    ['\r', 'continue'],
    ['x', 'continue'],
    [undefined, 'continue'], // stdin ended, or the job ended while asking
  ])('%j → %s', (key, choice) => {
    expect(choiceOf(key)).toBe(choice);
  });
});
