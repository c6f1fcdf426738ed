/**
 * Probe of an Ollama server (checked against docs.ollama.com and its
 * docs/context-length.mdx as of Ollama v0.14+, the first release with the
 * Anthropic Messages API): /api/tags lists the installed models, any of which
 * Ollama loads on demand; /api/ps lists the loaded ones with the context
 * length they were loaded with. That is the real per-request window. A model
 * that is not loaded gets Ollama's default when it loads (2048 up to v0.6.6,
 * 4096 from v0.6.7, by VRAM from v0.15.5: 4k below 24 GiB, 32k up to 48 GiB,
 * 256k above) unless OLLAMA_CONTEXT_LENGTH or the model's num_ctx says
 * otherwise, so its window is reported as unknown with that advice. Why it
 * matters: Ollama never refuses a prompt longer than the window, it drops the
 * oldest messages (server/prompt.go chatPrompt). (/api/show's
 * `<arch>.context_length` is the trained maximum, not the window Ollama
 * allocates, so it is not used.) POST /api/show's `capabilities` (types/model/capability.go; older Ollama omits it)
 * says whether a model takes images (`vision`) and tool calls (`tools`): the first sets the model's vision, so
 * models.yaml need not, the second a warning, since Claude Code cannot work without tools.
 */
import { z } from 'zod';
import { errorMessageOf, parseJson } from './http-get.js';
import { contextWarning, findings, optional, type BackendProber, type ProbeContext } from './probe-context.js';
import type { ServedModel } from './types.js';

const tagsBody = z.object({ models: z.array(z.looseObject({ name: z.string(), model: z.string().optional(), digest: z.string().optional() })) });
const psBody = z.object({ models: z.array(z.looseObject({ name: z.string(), context_length: z.number().int().positive().optional() })) });
/** types/model/capability.go: completion, tools, insert, vision, embedding, thinking; absent before Ollama reported it. */
const showBody = z.looseObject({ capabilities: z.array(z.string()).optional() });

/** /api/show is asked per installed model on every probe; a machine with more asks for these only. */
const MAX_SHOWN = 32;

/** What /api/show says the model takes, or undefined where this Ollama does not say (or the call failed). */
async function capabilitiesOf(ctx: ProbeContext, name: string): Promise<readonly string[] | undefined> {
  const res = await optional(ctx.post('/api/show', { model: name }));
  if (res?.status !== 200) return undefined;
  const show = showBody.safeParse(parseJson(res.text));
  return show.success ? show.data.capabilities : undefined;
}

export const OLLAMA_CONTEXT_ADVICE = 'start the server with OLLAMA_CONTEXT_LENGTH=131072 ollama serve (or set num_ctx in a Modelfile)';

export const probeOllama: BackendProber = async (ctx) => {
  const [tagsRes, psRes] = await Promise.all([ctx.get('/api/tags'), optional(ctx.get('/api/ps'))]);
  const tagsJson = parseJson(tagsRes.text);
  if (tagsRes.status === 401 || tagsRes.status === 403) return findings.needsKey(ctx.endpoint, "the proxy's key in front of Ollama");
  if (tagsRes.status === 503) return findings.loading('Ollama', errorMessageOf(tagsJson));
  const tags = tagsBody.safeParse(tagsJson);
  if (tagsRes.status !== 200 || !tags.success) {
    return findings.failed(`GET /api/tags answered HTTP ${tagsRes.status} without a model list; is this an Ollama server? (${tagsRes.text.slice(0, 120)})`);
  }
  const ps = psRes?.status === 200 ? psBody.safeParse(parseJson(psRes.text)) : undefined;
  const loaded = new Map((ps?.success ? ps.data.models : []).map((m) => [m.name, m.context_length]));
  const capabilities = await Promise.all(tags.data.models.map((m, i) => (i < MAX_SHOWN ? capabilitiesOf(ctx, m.name) : Promise.resolve(undefined))));
  const served: ServedModel[] = tags.data.models.map((m, i) => {
    const can = capabilities[i];
    const isLoaded = loaded.has(m.name);
    const context = loaded.get(m.name);
    const warnings = isLoaded
      ? contextWarning(m.name, context, OLLAMA_CONTEXT_ADVICE)
      : [
          `${m.name}: not loaded; its window is known once a request loads it (the model's num_ctx or OLLAMA_CONTEXT_LENGTH, else Ollama's default: ` +
            `4k below 24 GiB of VRAM), and Ollama silently drops the oldest messages of a longer prompt; ${OLLAMA_CONTEXT_ADVICE}`,
        ];
    if (can !== undefined && !can.includes('tools')) {
      warnings.push(`${m.name}: Ollama says this model does not support tools, which every Claude Code session needs; pick a model whose /api/show capabilities list "tools"`);
    }
    return {
      id: m.name,
      aliases: m.model !== undefined && m.model !== m.name ? [m.model] : [],
      vision: can?.includes('vision'),
      context,
      contextSource: context !== undefined ? 'ollama /api/ps context_length' : 'unknown',
      routerStatus: isLoaded ? 'loaded' : 'unloaded',
      warnings,
      // The same name pulled again may be other weights: the digest says.
      fingerprint: m.digest === undefined || m.digest === '' ? undefined : `digest ${m.digest}`,
    };
  });
  return {
    state: 'up',
    hostState: 'up',
    reason: served.length === 0 ? 'up, but no model is installed (ollama pull one)' : `up, serving ${served.map((m) => m.id).join(', ')}`,
    models: served,
    slots: undefined,
    metrics: { enabled: false },
    server: { router: true },
    warnings: psRes?.status === 200 ? [] : ['GET /api/ps failed: which models are loaded, and their windows, are unknown'],
  };
};
