/**
 * The one rule for deleting a worktree job's work, used by the job's finish
 * step and by `prune` alike: a worktree, its branch and their reflogs go only
 * when everything they hold is empty or reachable elsewhere — no tracked or
 * untracked changes, no ignored files but build caches, no stash made on the
 * job's branch, and no commit (on the branch, the worktree's HEAD, or either
 * reflog) that no other ref reaches. A folder is removed only while it is
 * still the worktree the record names; a path another job reused is left alone.
 */
import { realpath } from 'node:fs/promises';
import { git } from './git.js';

/** A job's worktree as its record names it. */
export interface JobWorktree {
  /** Any folder of the repository the job worked on (its main checkout). */
  readonly repo: string;
  readonly path: string;
  readonly branch: string;
  readonly baseCommit: string;
}

/** Whether the folder at the record's path is still that job's worktree. */
export type WorktreeOwnership = { readonly kind: 'ours' } | { readonly kind: 'gone' } | { readonly kind: 'other'; readonly why: string };

export interface HeldWork {
  readonly ownership: WorktreeOwnership;
  /** `git status --porcelain` found tracked changes or untracked files. */
  readonly changed: boolean;
  readonly untracked: readonly string[];
  readonly ignored: readonly string[];
  /** Ignored paths that are not build caches (defaults.worktree_caches). */
  readonly uncachedIgnored: readonly string[];
  /** Stash entries (`stash@{n}: subject`) made on the job's branch or on one of its commits. */
  readonly stashes: readonly string[];
  /** Commits beyond the base on the branch, the worktree's HEAD or their reflogs (what the job made). */
  readonly beyondBase: number;
  /** Of those, the ones no ref but the job's branch reaches: deleting the branch would lose them. */
  readonly branchOnly: readonly string[];
  /** The ones not even the branch reaches: only a reflog keeps them, and the reflog goes with the worktree and branch. */
  readonly reflogOnly: readonly string[];
  /** What git could not tell us; anything here keeps the work (losing it is worse than keeping a clean folder). */
  readonly unreadable: readonly string[];
}

const lines = (text: string): string[] => text.split('\n').filter(Boolean);
const MAX_REFLOG = 2000;

/** A path inside a cache: one of its folder names (or its own name) is listed in worktree_caches. */
const isCache = (path: string, caches: readonly string[]): boolean => path.split('/').some((part) => part !== '' && caches.includes(part));

async function samePath(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  return ra === rb;
}

/** Checks the repository's own list of worktrees: the path must be one of them, on the job's branch (or detached from it). */
export async function worktreeOwnership(wt: JobWorktree): Promise<WorktreeOwnership> {
  const inside = await git(wt.path, ['rev-parse', '--show-toplevel']);
  if (!inside.ok) {
    const exists = await realpath(wt.path).then(() => true, () => false);
    return exists ? { kind: 'other', why: `${wt.path} is no longer a git worktree` } : { kind: 'gone' };
  }
  if (!(await samePath(inside.stdout.trim(), wt.path))) return { kind: 'other', why: `${wt.path} is now inside another checkout (${inside.stdout.trim()})` };
  const list = await git(wt.repo, ['worktree', 'list', '--porcelain']);
  if (!list.ok) return { kind: 'other', why: `git cannot list the worktrees of ${wt.repo}: ${list.stderr.trim()}` };
  for (const entry of list.stdout.split('\n\n')) {
    const fields = lines(entry);
    const path = fields.find((f) => f.startsWith('worktree '))?.slice('worktree '.length);
    if (path === undefined || !(await samePath(path, wt.path))) continue;
    const branch = fields.find((f) => f.startsWith('branch '))?.slice('branch refs/heads/'.length);
    if (branch === wt.branch) return { kind: 'ours' };
    if (branch !== undefined) return { kind: 'other', why: `${wt.path} is now the worktree of branch ${branch}` };
    // Detached: ours only if its HEAD came from the job's branch (`checkout: moving from <branch> to …`).
    const moves = await git(wt.path, ['log', '-g', '--format=%gs', 'HEAD']);
    if (moves.ok && moves.stdout.includes(`moving from ${wt.branch} to`)) return { kind: 'ours' };
    return { kind: 'other', why: `${wt.path} has a detached HEAD that never was on ${wt.branch}` };
  }
  return { kind: 'other', why: `${wt.path} is not a worktree of ${wt.repo} (its git link points elsewhere)` };
}

async function branchTip(wt: JobWorktree): Promise<string | undefined> {
  const tip = await git(wt.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${wt.branch}^{commit}`]);
  return tip.ok ? tip.stdout.trim() : undefined;
}

/** Everything the job's refs point at or pointed at: the branch tip and reflog, and (while ours) the worktree's HEAD and its reflog. */
async function jobCommits(wt: JobWorktree, ours: boolean, tip: string | undefined, unreadable: string[]): Promise<string[]> {
  const found = new Set<string>(tip === undefined ? [] : [tip]);
  const reflogs: Array<[string, string]> = [];
  if (tip !== undefined) reflogs.push([wt.repo, `refs/heads/${wt.branch}`]);
  if (ours) reflogs.push([wt.path, 'HEAD']);
  for (const [cwd, ref] of reflogs) {
    const log = await git(cwd, ['log', '-g', '--format=%H', ref]);
    // A ref without a reflog is no error: it holds only its tip.
    if (log.ok) lines(log.stdout).slice(0, MAX_REFLOG).forEach((c) => found.add(c));
    else if (!/does not have any commits|no reflog|unknown revision/i.test(log.stderr)) unreadable.push(`the reflog of ${ref}: ${log.stderr.trim()}`);
  }
  if (ours) {
    const head = await git(wt.path, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    if (head.ok) found.add(head.stdout.trim());
  }
  return [...found];
}

/** Commits among `commits` beyond the base that no ref (but the excluded ones) reaches; the main checkout's HEAD counts, other worktrees' HEADs do not. */
async function unreachable(wt: JobWorktree, commits: readonly string[], alsoNot: readonly string[], unreadable: string[]): Promise<string[]> {
  if (commits.length === 0) return [];
  const result = await git(wt.repo, ['rev-list', ...commits, '--not', wt.baseCommit, ...alsoNot, `--exclude=refs/heads/${wt.branch}`, '--single-worktree', '--all']);
  if (!result.ok) unreadable.push(`which commits other refs hold: ${result.stderr.trim()}`);
  return lines(result.stdout);
}

async function stashesOf(wt: JobWorktree, jobMade: ReadonlySet<string>, unreadable: string[]): Promise<string[]> {
  const list = await git(wt.repo, ['stash', 'list', '--format=%gd%x00%P%x00%gs']);
  if (!list.ok) {
    unreadable.push(`the stash list: ${list.stderr.trim()}`);
    return [];
  }
  return lines(list.stdout).flatMap((line) => {
    const [ref = '', parents = '', subject = ''] = line.split('\0');
    const onBranch = subject.startsWith(`WIP on ${wt.branch}:`) || subject.startsWith(`On ${wt.branch}:`);
    return onBranch || jobMade.has(parents.split(' ')[0] ?? '') ? [`${ref}: ${subject}`] : [];
  });
}

async function filesIn(path: string, unreadable: string[]): Promise<{ changed: boolean; untracked: string[]; ignored: string[] }> {
  const status = await git(path, ['status', '--porcelain=v1', '-z', '--ignored', '--untracked-files=normal']);
  if (!status.ok) {
    unreadable.push(`the status of ${path}: ${status.stderr.trim()}`);
    return { changed: true, untracked: [], ignored: [] };
  }
  const entries = status.stdout.split('\0').filter(Boolean);
  return {
    changed: entries.some((e) => !e.startsWith('!! ')),
    untracked: entries.filter((e) => e.startsWith('?? ')).map((e) => e.slice(3)),
    ignored: entries.filter((e) => e.startsWith('!! ')).map((e) => e.slice(3)),
  };
}

/** What the job's worktree and branch hold that removing them would lose. Read-only. */
export async function heldWork(wt: JobWorktree, caches: readonly string[]): Promise<HeldWork> {
  const unreadable: string[] = [];
  const ownership = await worktreeOwnership(wt);
  // The repository itself was deleted: its branch, reflogs and stashes went with it, and a folder left at the path is not touched.
  if (!(await git(wt.repo, ['rev-parse', '--git-common-dir'])).ok && !(await realpath(wt.repo).then(() => true, () => false))) {
    return { ownership, changed: false, untracked: [], ignored: [], uncachedIgnored: [], stashes: [], beyondBase: 0, branchOnly: [], reflogOnly: [], unreadable };
  }
  const ours = ownership.kind === 'ours';
  const files = ours ? await filesIn(wt.path, unreadable) : { changed: false, untracked: [], ignored: [] };
  const tip = await branchTip(wt);
  const commits = await jobCommits(wt, ours, tip, unreadable);
  const beyond = commits.length === 0 ? [] : lines((await git(wt.repo, ['rev-list', ...commits, '--not', wt.baseCommit])).stdout);
  const notElsewhere = await unreachable(wt, commits, [], unreadable);
  const reflogOnly = tip === undefined ? notElsewhere : await unreachable(wt, commits, [tip], unreadable);
  const reflogSet = new Set(reflogOnly);
  return {
    ownership,
    ...files,
    uncachedIgnored: files.ignored.filter((p) => !isCache(p, caches)),
    stashes: await stashesOf(wt, new Set(beyond), unreadable),
    beyondBase: beyond.length,
    branchOnly: notElsewhere.filter((c) => !reflogSet.has(c)),
    reflogOnly,
    unreadable,
  };
}

const MAX_NAMED = 10;
const named = (items: readonly string[]): string => (items.length <= MAX_NAMED ? items.join(', ') : `${items.slice(0, MAX_NAMED).join(', ')} and ${items.length - MAX_NAMED} more`);
const short = (commits: readonly string[]): string => named(commits.map((c) => c.slice(0, 12)));

/** Why the work must stay, in words; empty when removing the worktree and branch loses nothing. */
export function reasonsToKeep(wt: JobWorktree, held: HeldWork): string[] {
  const reasons: string[] = [];
  if (held.changed) reasons.push(`its worktree ${wt.path} has uncommitted changes`);
  if (held.uncachedIgnored.length > 0) reasons.push(`its worktree holds files git ignores that are not build caches: ${named(held.uncachedIgnored)}`);
  if (held.branchOnly.length > 0) reasons.push(`branch ${wt.branch} has ${held.branchOnly.length} unmerged commit(s)`);
  if (held.reflogOnly.length > 0) {
    reasons.push(`${held.reflogOnly.length} commit(s) the job made are on no branch, only in a reflog (${short(held.reflogOnly)}); git -C ${wt.repo} branch rescued-${held.reflogOnly[0]?.slice(0, 8) ?? ''} ${held.reflogOnly[0] ?? ''} keeps them for good`);
  }
  if (held.stashes.length > 0) reasons.push(`the stash holds work made on ${wt.branch} (${named(held.stashes)})`);
  for (const what of held.unreadable) reasons.push(`git could not read ${what}`);
  return reasons;
}

export interface Removal {
  /** What went: `worktree PATH`, `branch NAME`. */
  readonly removed: readonly string[];
  readonly worktreeRemoved: boolean;
  /** Why the folder at the record's path was not touched (another job's or repository's now). */
  readonly leftAlone: string | undefined;
  /** What git refused; the rest of the job's work is then still in place. */
  readonly failures: readonly string[];
}

/** Why the folder at the record's path is not the job's to remove, in words; undefined when it is ours or gone. */
export const leftAloneNote = (wt: JobWorktree, held: HeldWork): string | undefined => (held.ownership.kind === 'other' ? `left ${wt.path} alone: ${held.ownership.why}` : undefined);

/**
 * Removes the job's worktree (only while it is still ours) and its branch. Call only when
 * reasonsToKeep is empty.
 */
export async function removeJobWork(wt: JobWorktree, held: HeldWork): Promise<Removal> {
  const removed: string[] = [];
  const failures: string[] = [];
  const leftAlone = leftAloneNote(wt, held);
  if (held.ownership.kind === 'ours') {
    // Only build caches can be left (reasonsToKeep is empty): git refuses to remove ignored files without --force.
    const gone = await git(wt.repo, ['worktree', 'remove', ...(held.ignored.length > 0 ? ['--force'] : []), wt.path]);
    if (!gone.ok) return { removed, worktreeRemoved: false, leftAlone, failures: [`could not remove the worktree ${wt.path}: ${gone.stderr.trim()}`] };
    removed.push(`worktree ${wt.path}`);
  }
  if ((await branchTip(wt)) !== undefined) {
    // -D, not -d: -d compares with the caller's current branch, not the base; heldWork found nothing only it holds.
    const deleted = await git(wt.repo, ['branch', '-D', wt.branch]);
    if (deleted.ok) removed.push(`branch ${wt.branch}`);
    else failures.push(`could not delete branch ${wt.branch}: ${deleted.stderr.trim()}`);
  }
  return { removed, worktreeRemoved: held.ownership.kind === 'ours', leftAlone, failures };
}
