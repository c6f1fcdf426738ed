/**
 * loadConfig behind a file-signature check: the files are still looked up on
 * every call, so an edit applies at once, but YAML parsing and validation run
 * only when models.yaml or models.local.yaml changed (they cost ~1.6 ms, on
 * every list_models and twice per run_agent).
 */
import { homedir } from 'node:os';
import { fileSignature } from './file-signature.js';
import { loadConfig, type LoadConfigOptions } from './load.js';
import { locateConfig } from './locate.js';
import type { Config } from './schema.js';

export function createConfigLoader(opts: LoadConfigOptions): () => Promise<Config> {
  let last: { signature: string; config: Config } | undefined;
  return async () => {
    const location = await locateConfig({ ...opts, homeDir: opts.homeDir ?? homedir() });
    const signature = `${await fileSignature(location.path)}|${await fileSignature(location.sidecarPath)}`;
    if (last?.signature === signature) return last.config;
    // A broken file throws here and is not remembered: the next call reads it again.
    const config = await loadConfig(opts);
    last = { signature, config };
    return config;
  };
}
