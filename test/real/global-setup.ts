/**
 * Vitest global setup of the real-server suite: the cached llama-server binary (built on first use)
 * and the two tiny models, handed to the test files through provide/inject.
 */
import type { TestProject } from 'vitest/node';
import { buildLlamaServer, ensureSource } from './build-llama-server.js';
import { ensureTinyModels, type TinyModels } from './tiny-models.js';

declare module 'vitest' {
  export interface ProvidedContext {
    llamaServer: string;
    tinyModels: TinyModels;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('llamaServer', await buildLlamaServer());
  project.provide('tinyModels', ensureTinyModels(ensureSource()));
}
