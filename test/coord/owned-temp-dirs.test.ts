/**
 * A job's private temp folders name their owner, so the first one another
 * process makes sweeps away what a SIGKILLed process left, and nothing else:
 * not a live process's folder, not a link or a file that only carries the name.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/coord/process-identity.js';
import { REPO_ROOT } from '../e2e/harness.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { until } from '../helpers/processes.js';

const cleanups = cleanupsAfterEach();
const NAME = 'la-owned-sweep';
const MODULE = JSON.stringify(join(REPO_ROOT, 'src', 'coord', 'owned-files.ts'));

/** Another process makes a folder of NAME (with a file in it) and then either ends or stays alive. */
const childScript = (stay: boolean): string => `
  const { makeOwnedTempDir } = await import(${MODULE});
  const dir = await makeOwnedTempDir(${JSON.stringify(NAME)});
  (await import('node:fs')).writeFileSync(dir + '/work.txt', 'scratch');
  console.log(dir);
  ${stay ? 'process.stdin.resume();' : ''}
`;

describe('owned temp folders', () => {
  it('the first folder a process makes sweeps dead owners\' folders of that name, and only theirs', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'la-owned-'));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp };
    const make = (): string => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', childScript(false)], { env, encoding: 'utf8', timeout: 20_000 }).stdout.trim();
    const live = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', childScript(true)], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    cleanups.push(() => void live.kill('SIGKILL'));
    let liveDir = '';
    live.stdout.on('data', (d: Buffer) => (liveDir += d.toString()));
    expect(await until(() => liveDir.endsWith('\n'), 20_000, 20)).toBe(true);
    liveDir = liveDir.trim();
    const dead = make();
    expect(readFileSync(join(dead, 'work.txt'), 'utf8')).toBe('scratch');

    // Names a dead owner could have made, that are not its folders: a link to a folder of the user's, a file.
    const deadOwner = `${NAME}.999999999@${processStartTime(process.pid) ?? '-'}`;
    const precious = join(tmp, 'precious');
    mkdirSync(precious);
    writeFileSync(join(precious, 'keep.txt'), 'keep');
    const link = join(tmp, `${deadOwner}.00000000-0000-4000-8000-000000000001.d`);
    symlinkSync(precious, link);
    const file = join(tmp, `${deadOwner}.00000000-0000-4000-8000-000000000002.d`);
    writeFileSync(file, 'not a folder');

    // The next process's first folder of the name sweeps the ended one's, before it ends itself.
    const next = make();
    expect(existsSync(dead)).toBe(false);
    expect(readdirSync(tmp).filter((n) => n.startsWith(NAME) || n === 'precious').sort()).toEqual([next, liveDir, link, file, precious].map((p) => p.slice(tmp.length + 1)).sort());
    expect(readFileSync(join(liveDir, 'work.txt'), 'utf8')).toBe('scratch');
    expect(readFileSync(join(link, 'keep.txt'), 'utf8')).toBe('keep');
  });
});
