/**
 * The agent definition files of one folder (`.claude/agents` of the project, or
 * the user's), read within bounds: a repository is untrusted, so each file is
 * read up to a byte limit, the walk stops after a number of files and a depth,
 * and in the project a link that leads out of the project is not followed.
 */
import { realpath, readdir } from 'node:fs/promises';
import { basename, join, relative, isAbsolute } from 'node:path';
import { ConfigError, errorMessage, isErrno } from '../errors.js';
import { readRegularFile } from '../coord/regular-file.js';
import { parseAgentText, sha256, type AgentSource, type FoundAgent } from './definition.js';

/** A definition is a prompt of a few pages; Claude Code's own are under 10 KiB. */
export const MAX_AGENT_FILE_BYTES = 64 * 1024;
/** Files read per folder, and how deep the walk goes (Claude Code reads sub-folders too). */
export const MAX_AGENT_FILES = 200;
const MAX_DEPTH = 6;

export interface AgentFolder {
  readonly dir: string;
  readonly source: Exclude<AgentSource, 'models.yaml'>;
  /** Links must resolve inside this folder (the project); absent: links are followed (the user's own files). */
  readonly tree?: string | undefined;
}

/** One file of the folder: its definition, or why it cannot be used. */
export type AgentFileEntry = { readonly path: string; readonly agent: FoundAgent } | { readonly path: string; readonly problem: ConfigError };

const inside = (tree: string, path: string): boolean => {
  const rel = relative(tree, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The name a broken file would have had: its file name, as Claude Code names new ones. */
export const stemOf = (path: string): string => basename(path).replace(/\.md$/i, '');

async function readAgentFile(path: string, shownAs: string, source: AgentFolder['source']): Promise<AgentFileEntry> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, { maxBytes: MAX_AGENT_FILE_BYTES });
  } catch (err) {
    const why = isErrno(err, 'EFBIG') ? `is larger than the ${MAX_AGENT_FILE_BYTES} bytes an agent definition may have; not read` : `cannot be read: ${errorMessage(err)}`;
    return { path: shownAs, problem: new ConfigError(shownAs, `${shownAs} ${why}`) };
  }
  try {
    const definition = parseAgentText(shownAs, bytes.toString('utf8'));
    return { path: shownAs, agent: { ...definition, source, file: shownAs, sha256: sha256(bytes) } };
  } catch (err) {
    if (err instanceof ConfigError) return { path: shownAs, problem: err };
    throw err;
  }
}

/** Where a link leads, when it may be followed; a problem otherwise. */
async function followLink(path: string, shown: string, folder: AgentFolder): Promise<string | ConfigError> {
  const target = await realpath(path).catch(() => undefined);
  if (target === undefined) return new ConfigError(shown, `${shown} is a link that leads nowhere; not followed`);
  if (folder.tree !== undefined && !inside(folder.tree, target)) {
    return new ConfigError(shown, `${shown} is a link to ${target}, outside the project; agent files of a repository are not followed out of it`);
  }
  return target;
}

/** Every `.md` file of the folder (sub-folders included, within the bounds); none when it does not exist. */
export async function scanAgentFolder(folder: AgentFolder): Promise<AgentFileEntry[]> {
  let root: string;
  try {
    root = await realpath(folder.dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
    return [{ path: folder.dir, problem: new ConfigError(folder.dir, `${folder.dir} cannot be read: ${errorMessage(err)}`) }];
  }
  if (folder.tree !== undefined && !inside(folder.tree, root)) {
    return [{ path: folder.dir, problem: new ConfigError(folder.dir, `${folder.dir} leads to ${root}, outside the project; not followed`) }];
  }
  const out: AgentFileEntry[] = [];
  const walk = async (dir: string, shown: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (out.length >= MAX_AGENT_FILES) return;
      const path = join(dir, entry.name);
      const shownPath = join(shown, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, shownPath, depth + 1);
        continue;
      }
      if (!entry.name.toLowerCase().endsWith('.md')) continue;
      if (!entry.isSymbolicLink()) {
        out.push(await readAgentFile(path, shownPath, folder.source));
        continue;
      }
      const target = await followLink(path, shownPath, folder);
      out.push(typeof target === 'string' ? await readAgentFile(target, shownPath, folder.source) : { path: shownPath, problem: target });
    }
  };
  await walk(root, folder.dir, 0);
  return out;
}
