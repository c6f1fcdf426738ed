/**
 * The self-test's project: a fresh git repository with one commit, made with
 * the user's git but none of their hooks, signing or identity settings, so a
 * strict global gitconfig cannot fail the test for reasons of its own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalAgentsError } from '../errors.js';
import { git } from '../jobs/git/git.js';

const NEUTRAL = ['-c', 'user.name=localagents self-test', '-c', 'user.email=selftest@localhost', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main'];

export async function makeThrowawayRepo(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const run = async (args: readonly string[]): Promise<void> => {
    const result = await git(dir, [...NEUTRAL, '-c', `core.hooksPath=${join(dir, '.no-hooks')}`, ...args]);
    if (!result.ok) throw new LocalAgentsError('internal', `git ${args[0] ?? ''} failed in ${dir}: ${result.stderr.trim()}`, { hint: 'Check that git is installed and on PATH.' });
  };
  await run(['init', '-q']);
  await writeFile(join(dir, 'README.md'), '# localagents self-test\n\nA throwaway repository; the self-test removes it.\n');
  await run(['add', '-A']);
  await run(['commit', '-q', '-m', 'initial']);
  return dir;
}
