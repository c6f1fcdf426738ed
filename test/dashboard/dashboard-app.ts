/**
 * A real app (config, simulator endpoint, job store in a temp dir) for the
 * dashboard tests: a menu of two models, one with the command that starts it.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { makeRepo } from '../helpers/git-repo.js';

export interface TestApp {
  readonly app: App;
  readonly root: string;
  readonly repo: string;
}

/** `endpointsYaml` is the body of the `endpoints:` map. */
export function makeTestApp(endpointsYaml: string): TestApp {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'la-dash-')));
  const repo = makeRepo();
  const config = join(root, 'models.yaml');
  writeFileSync(
    config,
    `endpoints:\n${endpointsYaml}` +
      'models:\n' +
      '  qwen3.8-27b:\n    notes: default mid-size coder\n    tags: [coder]\n' +
      '    bring_up: llama-server -hf unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL --port 8080 -c 131072\n' +
      '  gemma-small:\n    notes: quick answers, short context\n',
  );
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude'), LOCALAGENTS_LOG: 'warn' };
  const app = createApp({ configPath: config, cwd: repo, env, log: silentLogger, stateDir: join(root, 'state') });
  return { app, root, repo };
}
