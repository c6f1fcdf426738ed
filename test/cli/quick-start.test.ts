/**
 * The README's quick start is what a newcomer types: exactly two commands, the
 * same two CI runs, and the browser test's only failure mode is the line the
 * README shows.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium, NO_BROWSER } from '../helpers/find-chromium.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

function quickStartCommands(): string[] {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
}

describe('quick start', () => {
  it('is two commands, and CI runs exactly those', () => {
    const commands = quickStartCommands();
    expect(commands).toEqual(['npm ci && npx localagents doctor --self-test', 'npm test']);
    const ci = readFileSync(resolve(ROOT, '.ci', 'run'), 'utf8').split('\n');
    for (const command of commands) expect(ci).toContain(command);
  });

  it('without a browser, fails with the one instruction line the README shows', async () => {
    await expect(findChromium({ PATH: '' }, { packaged: false })).rejects.toThrow(NO_BROWSER);
    expect(readme).toContain(NO_BROWSER);
  });
});
