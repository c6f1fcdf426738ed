/**
 * What an in-place job (isolation none) left in the tree: for each file it
 * touched (at most 50), the blob at the commit the tree was on when the job
 * ended and the blob as the job left it. Compared once a commit followed
 * (outcome-check.ts), it tells whether the job's changes were kept.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { z } from 'zod';
import type { leftTreeSchema } from '../record/outcome-schema.js';
import { git } from './git.js';

export type LeftTree = z.infer<typeof leftTreeSchema>;

const MAX_FILES = 50;

/** The path as git names it from the repository's top, or undefined outside it. */
async function inRepo(top: string, cwd: string, file: string): Promise<string | undefined> {
  const abs = resolve(cwd, file);
  // The folder resolved, not the file: a deleted file has no real path, and a link is a file of its own.
  const real = join(await realpath(dirname(abs)).catch(() => dirname(abs)), basename(abs));
  const rel = relative(top, real);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? undefined : rel.split('\\').join('/');
}

const isFile = (path: string): Promise<boolean> => lstat(path).then((s) => s.isFile(), () => false);

/** Blobs of `paths` in `commit` ('' for a path not there). */
export async function blobsAt(repo: string, commit: string, paths: readonly string[]): Promise<Map<string, string> | undefined> {
  const listed = await git(repo, ['--literal-pathspecs', 'ls-tree', '-z', commit, '--', ...paths]);
  if (!listed.ok) return undefined;
  const blobs = new Map<string, string>();
  for (const entry of listed.stdout.split('\0')) {
    const tab = entry.indexOf('\t');
    const [, type, sha] = entry.slice(0, tab).split(' ');
    if (tab > 0 && type === 'blob' && sha !== undefined) blobs.set(entry.slice(tab + 1), sha);
  }
  return blobs;
}

/** Blobs of the files at `paths` in the working tree ('' for no file), or undefined when git cannot hash them. */
export async function workingBlobs(repo: string, paths: readonly string[]): Promise<Map<string, string> | undefined> {
  const present = (await Promise.all(paths.map(async (p) => ((await isFile(join(repo, p))) ? p : undefined)))).filter((p): p is string => p !== undefined);
  const hashed = present.length === 0 ? undefined : await git(repo, ['hash-object', '--', ...present]);
  if (hashed !== undefined && !hashed.ok) return undefined;
  const shas = hashed?.stdout.split('\n') ?? [];
  return new Map(present.map((p, i) => [p, shas[i] ?? '']));
}

/** The snapshot, or undefined when `cwd` is not in a git repository with a commit. */
export async function leftTreeOf(cwd: string, touched: readonly string[]): Promise<LeftTree | undefined> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel']);
  const head = await git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!top.ok || !head.ok) return undefined;
  const repo = top.stdout.trim();
  const paths = [...new Set((await Promise.all(touched.map((f) => inRepo(repo, cwd, f)))).filter((p): p is string => p !== undefined))];
  const compared = paths.slice(0, MAX_FILES);
  const before = compared.length === 0 ? new Map<string, string>() : await blobsAt(repo, head.stdout.trim(), compared);
  const after = await workingBlobs(repo, compared);
  if (before === undefined || after === undefined) return undefined;
  const files = compared.map((path) => ({ path, before: before.get(path) ?? '', after: after.get(path) ?? '' })).filter((f) => f.before !== f.after);
  return { repo, head: head.stdout.trim(), files, more: paths.length - compared.length };
}
