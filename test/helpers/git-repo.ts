/** A throwaway git repository with one commit, for worktree and job tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeRepo(prefix = 'la-repo-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const run = (...args: string[]): void => {
    execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  };
  run('init', '-q', '-b', 'main');
  run('config', 'user.email', 'dev@example.com');
  run('config', 'user.name', 'Dev');
  writeFileSync(join(dir, 'README.md'), '# demo\n');
  mkdirSync(join(dir, 'pkg'));
  writeFileSync(join(dir, 'pkg', 'a.txt'), 'a\n');
  run('add', '-A');
  run('commit', '-q', '-m', 'initial');
  return dir;
}

export function gitOut(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}
