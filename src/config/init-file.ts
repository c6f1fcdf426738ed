/**
 * The models.yaml `localagents init` writes: the servers it found as
 * endpoints, the rest as comments a person can uncomment. Written only where
 * nothing exists yet (never overwrites). What a server said is untrusted: a
 * model id is kept only when it is one printable line (it goes into a comment),
 * every base_url is one init probed itself, and the file is parsed back and
 * compared with what init meant to write before it takes its place.
 */
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { ownedFileName } from '../coord/owned-files.js';
import { LocalAgentsError, isErrno } from '../errors.js';
import { isPrintableLine } from '../printable.js';
import type { BackendKind } from './schema.js';

/** A server `localagents init` found on a local port (src/backends/detect.ts finds them). */
export interface FoundServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly backend: BackendKind;
  readonly models: readonly string[];
  /** A llama-server in router mode: `models` are those it can load (each on its first request). */
  readonly router: boolean;
}

/** Longer than any real model id or path (Hugging Face repo ids are at most 96 characters, plus a quant tag). */
export const MAX_MODEL_ID_CHARS = 256;

export interface InitFile {
  readonly text: string;
  /** What `text` must parse to: the only structure init writes. */
  readonly intended: {
    readonly endpoints: Readonly<Record<string, { readonly base_url: string; readonly backend: string }>>;
    /** A router's models as the menu, each on its router (absent when no router was found). */
    readonly models?: Readonly<Record<string, { readonly endpoint: string }>>;
  };
  /** Model ids a server sent that are not fit to write (more than one line, control characters, too long). */
  readonly refusedIds: ReadonlyArray<{ readonly baseUrl: string; readonly id: string }>;
}

function endpointName(server: FoundServer): string {
  return `${server.backend === 'llama.cpp' ? 'llama' : server.backend}-${server.port}`;
}

/** The file for the servers `found` at `probed` (the base URLs init itself tried); a server elsewhere is a bug, refused. */
export function initFile(found: readonly FoundServer[], probed: readonly string[], now: Date = new Date()): InitFile {
  const endpoints: Record<string, { base_url: string; backend: string }> = {};
  const refusedIds: Array<{ baseUrl: string; id: string }> = [];
  // A router's models become the menu: each is one a job can name, loaded on its first job.
  // A Map, not an object: an id is the server's word, and "__proto__" must stay a key like any other.
  const menu = new Map<string, { endpoint: string }>();
  const lines = [
    `# models.yaml, written by \`localagents init\` on ${now.toISOString().slice(0, 10)}. Read again on every call: edit freely.`,
    '# Every key is explained in models.example.yaml in the localagents repository; `localagents doctor` checks this file.',
    '',
  ];
  if (found.length === 0) {
    lines.push(
      '# No model server answered on the usual local ports (8080 llama-server, 8000 vLLM, 11434 Ollama, 1234 LM Studio, 30000 SGLang).',
      '# Start one, then uncomment and adjust an endpoint below (base_url may point at another machine: http://gpu-box:8080).',
      'endpoints: {}',
      '# endpoints:',
      '#   gpu:',
      '#     base_url: http://127.0.0.1:8080   # llama-server --jinja --slots --metrics -c 262144 --parallel 2',
      '#     backend: llama.cpp                # or vllm (vllm serve … --enable-auto-tool-choice --tool-call-parser …)',
    );
  } else {
    lines.push('endpoints:');
    for (const server of found) {
      if (!probed.includes(server.baseUrl)) throw new LocalAgentsError('internal', `init found a server at ${server.baseUrl}, which it did not probe`);
      const ids = server.models.filter((id) => isPrintableLine(id, MAX_MODEL_ID_CHARS));
      refusedIds.push(...server.models.filter((id) => !ids.includes(id)).map((id) => ({ baseUrl: server.baseUrl, id })));
      endpoints[endpointName(server)] = { base_url: server.baseUrl, backend: server.backend };
      const serving = ids.length === 0 ? '' : server.router ? `   # a llama-server router: loads ${ids.join(', ')} on demand` : `   # serving ${ids.join(', ')}`;
      lines.push(`  ${endpointName(server)}:${serving}`, `    base_url: ${server.baseUrl}`, `    backend: ${server.backend}`);
      for (const id of server.router ? ids : []) if (!menu.has(id)) menu.set(id, { endpoint: endpointName(server) });
    }
  }
  lines.push('', '# The model menu: what you can start, so localagents can say where and how when a model is not running.');
  if (menu.size > 0) {
    lines.push('# The router\'s models (add notes: and tags: to each; `localagents doctor` warns when --models-max is below what the menu uses at once).', 'models:');
    for (const [id, entry] of menu) lines.push(`  ${JSON.stringify(id)}:`, `    endpoint: ${entry.endpoint}`);
  } else {
    lines.push(
      '# models:',
      '#   qwen3.8-27b:',
      '#     notes: default mid-size coder',
      '#     bring_up: llama-server -hf unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL --jinja --slots --metrics -c 262144 --parallel 2',
    );
  }
  lines.push(
    '',
    '# defaults:',
    '#   model: qwen3.8-27b          # used when a job names no model',
    '#   permission_mode: acceptEdits',
    '',
  );
  return { text: lines.join('\n'), intended: menu.size > 0 ? { endpoints, models: Object.fromEntries(menu) } : { endpoints }, refusedIds };
}

/**
 * Writes the file at `path` unless a file is already there: to a temp file first, read back and
 * parsed, and linked into place only if it says exactly what init meant (link never replaces a file).
 */
export async function writeNewConfig(path: string, file: InitFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = ownedFileName(path, 'tmp');
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(file.text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    const written: unknown = parse(await readFile(tmp, 'utf8'));
    if (!isDeepStrictEqual(written, file.intended)) {
      throw new LocalAgentsError('internal', `the models.yaml init composed does not say what it meant to (it parses to ${JSON.stringify(written).slice(0, 200)}); nothing was written`);
    }
    await link(tmp, path);
  } catch (err) {
    if (isErrno(err, 'EEXIST')) {
      throw new LocalAgentsError('bad_argument', `${path} already exists; localagents init never overwrites a config`, { hint: 'Edit it by hand, or check it with localagents doctor.', details: { path } });
    }
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined); // gone already when open failed
  }
}
