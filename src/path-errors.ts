/**
 * One wording for a file or folder localagents keeps (state directory,
 * models.yaml) that is in a shape it cannot use: a Node errno error on a
 * path becomes a message that names the path, what is there, what was
 * expected, and what to do. The CLI, the MCP tools and the dashboard all
 * answer with it, so a raw `EEXIST: file already exists, mkdir …` never
 * reaches anyone.
 */
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { LocalAgentsError } from './errors.js';

/** What localagents expected at the path, when the caller knows better than the errno. */
export type Expected = 'a folder' | 'a regular file';

const SHAPE_CODES = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'ELOOP', 'ENXIO', 'EFTYPE']);
const ACCESS_CODES = new Set(['EACCES', 'EPERM']);
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

interface ErrnoOnPath {
  readonly code: string;
  readonly path: string;
  readonly syscall: string | undefined;
}

function errnoOnPath(err: unknown): ErrnoOnPath | undefined {
  if (!(err instanceof Error)) return undefined;
  const { code, path, syscall } = err as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof path === 'string' ? { code, path, syscall } : undefined;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What is at `path`, in words: "a regular file", "a symbolic link to /x", … */
export function describeEntry(path: string, stats: Stats | undefined = lstatOrUndefined(path)): string {
  if (stats === undefined) return 'nothing';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFile()) return 'a regular file';
  if (stats.isSymbolicLink()) {
    let target = '?';
    try {
      target = readlinkSync(path);
    } catch {
      // unreadable link: its name is enough
    }
    return `a symbolic link to ${target}`;
  }
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'a device file';
}

/** ENOTDIR names the whole path; the culprit is the nearest ancestor that exists and is not a folder. */
function blockingAncestor(path: string): string {
  for (let p = path; ; p = dirname(p)) {
    const stats = lstatOrUndefined(p);
    if (stats !== undefined && !stats.isDirectory()) return p;
    if (dirname(p) === p) return path;
  }
}

const moveAside = (path: string): string =>
  `Move it aside (mv '${path}' '${path}.bak') and run the command again; localagents makes a new one and deletes nothing of yours.`;

/** `uid 1000 (mode 0644)` of whoever owns `path`, for a permission message. */
function ownership(path: string): string {
  const stats = lstatOrUndefined(path);
  return stats === undefined ? '' : `, which is owned by uid ${stats.uid} with mode 0${(stats.mode & 0o777).toString(8)}`;
}

/** The error for a filesystem fault on a path localagents keeps; undefined for anything that is not one. */
export function pathError(err: unknown, expected?: Expected): LocalAgentsError | undefined {
  const fault = errnoOnPath(err);
  if (fault === undefined) return undefined;
  const { code, syscall } = fault;
  const details = { path: fault.path, errno: code };
  if (SHAPE_CODES.has(code)) {
    const path = code === 'ENOTDIR' ? blockingAncestor(fault.path) : fault.path;
    const want = code === 'ENOTDIR' || (code === 'EEXIST' && syscall === 'mkdir') ? 'a folder' : (expected ?? 'a regular file');
    return new LocalAgentsError('bad_state', `${path} is ${describeEntry(path)}, but localagents expects ${want} there`, { hint: moveAside(path), details: { ...details, path }, cause: err });
  }
  if (ACCESS_CODES.has(code)) {
    const uid = process.getuid?.();
    const who = uid === undefined ? 'this user' : `uid ${uid}`;
    return new LocalAgentsError('state_unwritable', `localagents (running as ${who}) may not ${syscall ?? 'use'} ${fault.path}${ownership(fault.path)}`, {
      hint: `Give it to the user who runs localagents (chown -R ${uid ?? '$(id -u)'} '${fault.path}'), or point LOCALAGENTS_STATE_DIR at a folder of your own.`,
      details,
      cause: err,
    });
  }
  if (DISK_CODES.has(code)) {
    const why = code === 'EROFS' ? 'is on a read-only file system' : 'is on a full disk (or over quota)';
    return new LocalAgentsError('state_unwritable', `${fault.path} ${why}`, {
      hint: 'Free disk space, or point LOCALAGENTS_STATE_DIR at a writable folder.',
      details,
      cause: err,
    });
  }
  if (code === 'ENOENT') {
    return new LocalAgentsError('bad_state', `${fault.path} does not exist (removed while localagents was using it?)`, { hint: 'Run the command again; localagents makes the folders it needs.', details, cause: err });
  }
  return new LocalAgentsError('bad_state', `${syscall ?? 'using'} ${fault.path} failed (${code}); it is ${describeEntry(fault.path)}`, { hint: moveAside(fault.path), details, cause: err });
}
