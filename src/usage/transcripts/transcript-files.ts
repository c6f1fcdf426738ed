/**
 * Where the calling Claude Code keeps its transcripts, and which of them may be
 * read: `<config>/projects/<cwd with every non-alphanumeric as ->/<session>.jsonl`
 * (`<config>` is CLAUDE_CONFIG_DIR or ~/.claude; a folder name over 200 characters
 * is cut there and given a hash we do not compute, so it is matched by its cut).
 * Read-only, newest first, a few files: nothing is followed through a link, and a
 * file that is not a regular one of this user is skipped with its reason named.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The most transcripts of one project read for a report: the newest hold the calls of recent jobs. */
export const MAX_TRANSCRIPT_FILES = 24;
/** Claude Code cuts a project folder's name here (and adds a hash). */
const NAME_CUT = 200;

/** A transcript left unread, and why, in words a person can act on. */
export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
}

export interface TranscriptFiles {
  /** The project's folder, when there is one to read. */
  readonly folder: string | undefined;
  /** Regular files of this user, newest first. */
  readonly files: readonly string[];
  readonly skipped: readonly SkippedFile[];
  /** Why there is nothing to read, when there is nothing. */
  readonly none?: string;
}

/** `<config>/projects`, the folder Claude Code writes its transcripts under. */
export function projectsRoot(env: Readonly<Record<string, string | undefined>>, home: string = homedir()): string {
  const config = env.CLAUDE_CONFIG_DIR;
  return join(config !== undefined && config !== '' ? config : join(home, '.claude'), 'projects');
}

/** The folder name Claude Code gives a working directory (before the cut). */
export const projectFolderName = (cwd: string): string => cwd.replace(/[^a-zA-Z0-9]/g, '-');

const uid = (): number | undefined => process.getuid?.();

/** Why a directory entry is not a transcript we read, or undefined when it is one. */
export function refusal(info: Stats): string | undefined {
  if (info.isSymbolicLink()) return 'a symbolic link (not followed)';
  if (info.isFIFO()) return 'a FIFO, not a regular file';
  if (!info.isFile()) return 'not a regular file';
  const me = uid();
  if (me !== undefined && info.uid !== me) return `owned by another user (uid ${info.uid})`;
  return undefined;
}

async function folderOf(root: string, cwd: string): Promise<{ folder?: string; none?: string }> {
  const name = projectFolderName(cwd);
  let candidates: string[];
  if (name.length <= NAME_CUT) candidates = [name];
  else {
    const entries = await readdir(root).catch(() => [] as string[]);
    candidates = entries.filter((e) => e.startsWith(`${name.slice(0, NAME_CUT)}-`));
  }
  for (const candidate of candidates) {
    const folder = join(root, candidate);
    const info = await lstat(folder).catch(() => undefined);
    if (info === undefined) continue;
    if (info.isSymbolicLink()) return { none: `${folder} is a symbolic link; transcripts are read only inside ${root}` };
    if (info.isDirectory()) return { folder };
  }
  return { none: `no transcript folder for ${cwd} under ${root}` };
}

/** The project's transcripts that may be read, newest first, at most {@link MAX_TRANSCRIPT_FILES}. */
export async function transcriptFiles(root: string, cwd: string): Promise<TranscriptFiles> {
  const { folder, none } = await folderOf(root, cwd);
  if (folder === undefined) return { folder, files: [], skipped: [], none };
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (err) {
    return { folder, files: [], skipped: [], none: `${folder} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const skipped: SkippedFile[] = [];
  const found: { file: string; mtime: number }[] = [];
  for (const entry of entries) {
    if (!entry.name.endsWith('.jsonl')) continue;
    const file = join(folder, entry.name);
    const info = await lstat(file).catch(() => undefined);
    if (info === undefined) continue;
    const why = refusal(info);
    if (why === undefined) found.push({ file, mtime: info.mtimeMs });
    else skipped.push({ file, reason: why });
  }
  found.sort((a, b) => b.mtime - a.mtime);
  const files = found.slice(0, MAX_TRANSCRIPT_FILES).map((f) => f.file);
  const also = skipped.length === 0 ? '' : ` (skipped: ${skipped.map((k) => `${k.file}: ${k.reason}`).join('; ')})`;
  return { folder, files, skipped, ...(files.length === 0 ? { none: `no readable transcript in ${folder}${also}` } : {}) };
}
