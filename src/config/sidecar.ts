/**
 * Writes models.local.yaml, the sidecar that register_endpoint/register_model
 * add to, so the hand-written models.yaml is never touched. Each upsert is a
 * locked read-modify-write with an atomic replace (temp file + rename, mode
 * 0600), so concurrent registrations from several processes all land, and a
 * crash leaves either the old file or the new one. Comments and other entries
 * are kept (yaml Document API).
 */
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isMap, parse, type Document } from 'yaml';
import type { z } from 'zod';
import { removeDeadOwnersFiles } from '../coord/owned-files.js';
import { privateTempPrefix, writePrivateFile } from '../coord/private-files.js';
import { BadArgumentError, LocalAgentsError, isErrno } from '../errors.js';
import { isPrintableLine, printable } from '../printable.js';
import { withFileLock, type FileLockOptions } from '../coord/file-lock.js';
import { configErrorFromIssues } from './format-issues.js';
import { endpointSchema, modelSchema, type EndpointConfig, type ModelEntry } from './schema.js';
import { schemaIssues, validateConfigText } from './validate-file.js';
import { readRegularFile } from '../coord/regular-file.js';
import { pathError } from '../path-errors.js';

export type SidecarSection = 'endpoints' | 'models';
export type EndpointInput = z.input<typeof endpointSchema>;
export type ModelInput = z.input<typeof modelSchema>;

const MAX_NAME_CHARS = 128;

const HEADER = [
  ' models.local.yaml: written by localagents when Claude registers an endpoint or a model for you.',
  ' An entry here replaces the entry of the same name in models.yaml; defaults: keys override one by one.',
  ' You may edit it by hand; localagents keeps your comments when it adds entries.',
].join('\n');

/**
 * Adds or replaces `section.name` in the sidecar and returns the entry as the
 * loader will see it (schema defaults applied). Throws BadArgumentError for an
 * invalid entry and ConfigError when the existing sidecar is itself broken.
 */
export function upsertSidecarEntry(
  sidecarPath: string,
  section: 'endpoints',
  name: string,
  entry: EndpointInput,
  options?: FileLockOptions,
): Promise<EndpointConfig>;
export function upsertSidecarEntry(
  sidecarPath: string,
  section: 'models',
  name: string,
  entry: ModelInput,
  options?: FileLockOptions,
): Promise<ModelEntry>;
export async function upsertSidecarEntry(
  sidecarPath: string,
  section: SidecarSection,
  name: string,
  entry: EndpointInput | ModelInput,
  options: FileLockOptions = {},
): Promise<EndpointConfig | ModelEntry> {
  const parsed = validateEntry(sidecarPath, section, name, entry);
  await mkdir(dirname(sidecarPath), { recursive: true, mode: 0o700 });
  // A symlinked sidecar (kept in a dotfiles repository, say) is written through: the link stays a link.
  const target = await writeTarget(sidecarPath);
  await withFileLock(
    `${target}.lock`,
    async () => {
      // Only one writer at a time holds the lock: a temp file of a dead one is litter from a SIGKILL.
      await removeDeadOwnersFiles(privateTempPrefix(target), ['tmp']);
      const doc = await readSidecarDocument(sidecarPath);
      const existing = doc.get(section, true);
      // An absent, empty (`endpoints:`) or `{}` section gets a fresh block mapping, so entries are not written inline.
      if (!isMap(existing) || existing.items.length === 0) doc.set(section, doc.createNode({}));
      doc.setIn([section, name], doc.createNode(entry));
      const text = doc.toString();
      // What lands on disk must be this entry and nothing more: no value of it may have opened a key of its own.
      const written = (parse(text) as Record<string, Record<string, unknown> | undefined>)[section]?.[name];
      if (!isDeepStrictEqual(written, JSON.parse(JSON.stringify(entry)))) {
        throw new LocalAgentsError('internal', `the ${section}.${name} entry would not read back as written; ${sidecarPath} was left as it was`);
      }
      // The result must load; this catches anything the per-entry check cannot see.
      const check = validateConfigText(sidecarPath, text);
      if (check.issues.length > 0) throw configErrorFromIssues(check.issues);
      await writePrivateFile(target, text);
    },
    options,
  );
  return parsed;
}

function validateEntry(
  sidecarPath: string,
  section: SidecarSection,
  name: string,
  entry: EndpointInput | ModelInput,
): EndpointConfig | ModelEntry {
  if (name.trim() === '') throw new BadArgumentError('name', 'name must not be empty');
  if (!isPrintableLine(name, MAX_NAME_CHARS)) throw new BadArgumentError('name', `name must be one printable line of 1 to ${MAX_NAME_CHARS} characters without leading or trailing spaces, not "${printable(name.slice(0, 80))}"`);
  const issues = schemaIssues(sidecarPath, { [section]: { [name]: entry } }, () => undefined);
  const first = issues[0];
  if (first !== undefined) {
    const field = first.key?.split('.').at(-1) ?? 'entry';
    throw new BadArgumentError(field, issues.map((i) => `${i.key ?? section}: ${i.message}`).join('\n'), {
      details: { issues },
    });
  }
  return section === 'endpoints' ? endpointSchema.parse(entry) : modelSchema.parse(entry);
}

/** The sidecar as an editable Document: a fresh one with a header when the file is absent or empty. */
async function readSidecarDocument(sidecarPath: string): Promise<Document> {
  let text = '';
  try {
    text = (await readRegularFile(sidecarPath, { follow: true })).toString('utf8');
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw pathError(err) ?? err;
  }
  const validated = validateConfigText(sidecarPath, text);
  if (validated.issues.length > 0) {
    // Rewriting a file we cannot read would throw away what the user wrote there.
    throw configErrorFromIssues(validated.issues, `Fix ${sidecarPath} by hand (or delete it), then register again.`);
  }
  const doc: Document = validated.source.doc;
  if (!isMap(doc.contents)) doc.contents = doc.createNode({});
  if (text.trim() === '') doc.commentBefore = HEADER;
  return doc;
}

/**
 * Where writing `path` must land: `path` itself, or, when it is a symlink, the file it points to
 * (followed to the end, dangling or not), so the rename replaces the target and not the link.
 */
async function writeTarget(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    let info;
    try {
      info = await lstat(current);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) break; // a new file, or a dangling link's target to be created
      throw err;
    }
    if (!info.isSymbolicLink()) break;
    current = resolve(dirname(current), await readlink(current));
  }
  if (current === path) return path;
  const dir = dirname(current);
  const dirInfo = await stat(dir).catch(() => undefined);
  if (dirInfo === undefined || !dirInfo.isDirectory()) {
    throw new LocalAgentsError('state_unwritable', `${path} is a symlink to ${current}, whose folder ${dir} does not exist`, {
      hint: `Create ${dir}, or replace the symlink ${path} with a regular file.`,
    });
  }
  return current;
}

