/**
 * The read commands' bundle comes with a V8 code cache the Node that built it takes (src/cli/code-cache.cts):
 * one V8 refuses costs every status line a tenth of its start, and nothing else would show it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../e2e/harness.js';

describe('the read commands code cache', () => {
  it('is there after npm run build, and V8 takes it', () => {
    const loader = join(REPO_ROOT, 'dist', 'cli', 'code-cache.cjs');
    const bundle = join(REPO_ROOT, 'dist', 'fast', 'read-commands.cjs');
    // A fresh Node with no flags, as dist/main.cjs runs: V8 refuses a cache made under other flags.
    const check = `const { script } = require(${JSON.stringify(loader)}).loadWithCodeCache(${JSON.stringify(bundle)}); process.stdout.write(String(script.cachedDataRejected));`;
    const result = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(result).toMatchObject({ status: 0, stdout: 'false', stderr: '' });
  });
});
