/**
 * Vitest global setup of the real-server suite: the cached llama-server binary (built on first use),
 * the source tree and the two tiny models, handed to the test files through provide/inject.
 */
import type { TestProject } from 'vitest/node';
import { buildLlamaServer, ensureSource } from './build-llama-server.js';
import { ensureTinyModels, type TinyModels } from './tiny-models.js';

declare module 'vitest' {
  export interface ProvidedContext {
    llamaServer: string;
    /** The llama.cpp source tree the binary was built from (its chat templates). */
    llamaSource: string;
    tinyModels: TinyModels;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('llamaServer', await buildLlamaServer());
  const source = ensureSource();
  project.provide('llamaSource', source);
  project.provide('tinyModels', ensureTinyModels(source));
}
