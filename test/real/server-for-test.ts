/** startLlamaServer with the binary and tiny models the suite's global setup provides. */
import { inject } from 'vitest';
import { startLlamaServer, type LlamaServer, type LlamaServerOptions } from './llama-server.js';

export type TestServerOptions = Omit<LlamaServerOptions, 'binary' | 'modelFile'> & { readonly model: 'eos' | 'random' };

export function startTestServer({ model, ...options }: TestServerOptions): Promise<LlamaServer> {
  return startLlamaServer({ ...options, binary: inject('llamaServer'), modelFile: inject('tinyModels')[model] });
}
