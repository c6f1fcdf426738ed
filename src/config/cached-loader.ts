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
  // The load itself is kept, so calls that come while it runs share it (and the Config they get is one object).
  let last: { signature: string; config: Promise<Config> } | undefined;
  return async () => {
    const location = await locateConfig({ ...opts, homeDir: opts.homeDir ?? homedir() });
    const signature = `${await fileSignature(location.path)}|${await fileSignature(location.sidecarPath)}`;
    if (last?.signature === signature) return last.config;
    const config = loadConfig(opts);
    const loading = { signature, config };
    last = loading;
    // A broken file is not remembered: the next call reads it again.
    config.catch(() => {
      if (last === loading) last = undefined;
    });
    return config;
  };
}
