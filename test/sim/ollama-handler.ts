/**
 * Ollama HTTP surface (v0.14+): GET / ("Ollama is running"), /api/version,
 * /api/tags (installed models), /api/ps (loaded models with the context length
 * they were loaded with), and the Anthropic /v1/messages routes. Ollama's
 * Anthropic layer converts to its own chat API and is as lenient as
 * llama.cpp's about mid-conversation system messages, so generation is
 * delegated to the llama.cpp engine of this simulator; only the info routes are
 * Ollama's own.
 */
import { sendJson, sendText } from './http-io.js';
import { LlamaHandler } from './llama-handler.js';
import type { Exchange, SimState } from './sim-state.js';

export class OllamaHandler {
  private readonly generation: LlamaHandler;

  constructor(private readonly state: SimState) {
    this.generation = new LlamaHandler(state);
  }

  async handle(ex: Exchange): Promise<void> {
    const { method, path } = ex.rec;
    const o = this.state.opts;
    if (method === 'GET' && path === '/') return sendText(ex.res, 200, 'Ollama is running');
    if (method === 'GET' && path === '/api/version') return sendJson(ex.res, 200, { version: '0.14.0' });
    if (method === 'GET' && path === '/api/tags') {
      return sendJson(ex.res, 200, { models: [{ name: o.modelId, model: o.modelId, modified_at: '2026-01-16T00:00:00Z', size: 1, digest: 'sim', details: { format: 'gguf' } }] });
    }
    if (method === 'GET' && path === '/api/ps') {
      const loaded = this.state.ollamaLoaded ? [{ name: o.modelId, model: o.modelId, size: 1, size_vram: 1, digest: 'sim', expires_at: '2026-01-16T00:05:00Z', context_length: o.context }] : [];
      return sendJson(ex.res, 200, { models: loaded });
    }
    if (method === 'POST' && path.startsWith('/v1/messages')) {
      // Ollama loads the model on the first request for it.
      this.state.ollamaLoaded = true;
      return this.generation.handle(ex);
    }
    return sendText(ex.res, 404, '404 page not found');
  }
}
