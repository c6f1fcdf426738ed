/**
 * Ollama HTTP surface (routes as server/routes.go registers them): GET/HEAD /
 * ("Ollama is running"), /api/version, /api/tags (installed models), /api/ps
 * (loaded models with the context length each was loaded with), POST /api/show
 * (a model's capabilities: vision with the `vision` option), and POST
 * /v1/messages. Anything else, /v1/messages/count_tokens included, is gin's
 * plain-text 404. Ollama has no API key: one sent is ignored.
 */
import { sendJson, sendText } from './http-io.js';
import { SlotPool } from './llama-slots.js';
import { handleOllamaMessages, type OllamaEngine } from './ollama-messages.js';
import type { Exchange, SimState } from './sim-state.js';

/** The version /api/version reports: the one whose source the simulator follows (see README.md). */
export const OLLAMA_SIM_VERSION = '0.15.5';
const MODIFIED_AT = '2026-02-03T10:00:00.000000000Z';
const DIGEST = 'a2af6cc3eb7fa8be8504abaf9b04e88f17a119ec3f04a3addf55f92841195f5a';

export class OllamaHandler {
  private readonly engine: OllamaEngine;

  constructor(private readonly state: SimState) {
    // Ollama keeps a prompt cache per parallel sequence, chosen by longest common prefix.
    this.engine = { state, pool: new SlotPool(state.opts.slots, state.opts.slotPromptSimilarity, false) };
  }

  async handle(ex: Exchange): Promise<void> {
    const route = `${ex.rec.method} ${ex.rec.path}`;
    switch (route) {
      case 'GET /':
      case 'HEAD /':
        return sendText(ex.res, 200, 'Ollama is running', { 'Content-Type': 'text/plain; charset=utf-8' });
      case 'GET /api/version':
        return sendJson(ex.res, 200, { version: OLLAMA_SIM_VERSION });
      case 'GET /api/tags':
        return sendJson(ex.res, 200, { models: [{ name: this.state.opts.modelId, model: this.state.opts.modelId, modified_at: MODIFIED_AT, size: 17_338_062_848, digest: DIGEST, details: this.details() }] });
      case 'GET /api/ps':
        return sendJson(ex.res, 200, { models: this.state.ollamaLoaded ? [this.loaded()] : [] });
      case 'POST /api/show':
        return this.show(ex);
      case 'POST /v1/messages':
        return handleOllamaMessages(this.engine, ex);
      default:
        return sendText(ex.res, 404, '404 page not found', { 'Content-Type': 'text/plain' });
    }
  }

  /** server/routes.go ShowHandler: `model` (or the older `name`); capabilities from the model's template and projector. */
  private show(ex: Exchange): void {
    const body = (ex.rec.json ?? {}) as { model?: unknown; name?: unknown };
    const name = typeof body.model === 'string' && body.model !== '' ? body.model : body.name;
    if (name !== this.state.opts.modelId) return sendJson(ex.res, 404, { error: `model '${String(name)}' not found` });
    const capabilities = ['completion', 'tools', 'thinking', ...(this.state.opts.vision ? ['vision'] : [])];
    return sendJson(ex.res, 200, { license: '', modelfile: '', parameters: '', template: '{{ .Prompt }}', details: this.details(), model_info: { 'general.architecture': 'qwen3' }, capabilities, modified_at: MODIFIED_AT });
  }

  private details(): Record<string, unknown> {
    return { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '27.8B', quantization_level: 'Q4_K_M' };
  }

  private loaded(): Record<string, unknown> {
    const id = this.state.opts.modelId;
    const expires = new Date(Date.now() + 5 * 60_000).toISOString();
    return { name: id, model: id, size: 21_474_836_480, digest: DIGEST, details: this.details(), expires_at: expires, size_vram: 21_474_836_480, context_length: this.state.opts.context };
  }
}
