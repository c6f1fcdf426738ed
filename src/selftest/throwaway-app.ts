/**
 * A localagents of its own for the self-test and the sandbox proof: the scripted model
 * as the whole registry, in memory, and a session environment of throwaway folders
 * that passes on nothing of the caller's HOME or Claude Code config.
 */
import { join } from 'node:path';
import { createApp, type App } from '../app.js';
import { defaultsSchema, type Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { SELFTEST_MODEL } from './scripted-backend.js';

/** What a throwaway session inherits of the caller's environment. */
const PASSED_ON = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'USER', 'LOGNAME', 'SHELL', 'TZ'];

/** The whole registry, in memory: one endpoint, the scripted model as the default. */
function selfTestConfig(baseUrl: string, root: string, sandboxed: boolean): Config {
  return {
    path: undefined,
    sidecarPath: join(root, 'models.local.yaml'), // never written: the self-test registers nothing
    endpoints: [{ name: 'selftest', base_url: baseUrl, backend: 'other', notes: 'built-in scripted model (doctor --self-test)' }],
    models: [],
    defaults: defaultsSchema.parse({ model: SELFTEST_MODEL, max_turns: 6, timeout_s: 120, queue_grace_s: 0, sandbox: { enabled: sandboxed } }),
    searched: [],
    warnings: [],
  };
}

export interface ThrowawayAppOptions {
  /** The temporary folder everything lives in. */
  readonly root: string;
  readonly dirs: { readonly home: string; readonly claude: string; readonly state: string; readonly repo: string; readonly tmp?: string };
  /** The caller's environment: only PASSED_ON is taken from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly backendUrl: string;
  readonly sandboxed: boolean;
  readonly claudePath: string;
  readonly log: Logger;
}

/** An app whose jobs run in `dirs.repo` against the scripted backend, with its state in `dirs.state`. */
export function throwawayApp(o: ThrowawayAppOptions): App {
  const env: Record<string, string | undefined> = { HOME: o.dirs.home, CLAUDE_CONFIG_DIR: o.dirs.claude, LOCALAGENTS_STATE_DIR: o.dirs.state };
  if (o.dirs.tmp !== undefined) env.TMPDIR = o.dirs.tmp;
  for (const key of PASSED_ON) if (o.env[key] !== undefined) env[key] = o.env[key];
  const config = selfTestConfig(o.backendUrl, o.root, o.sandboxed);
  return createApp({ loadConfig: () => Promise.resolve(config), stateDir: o.dirs.state, cwd: o.dirs.repo, env, log: o.log, claudeExecutable: o.claudePath });
}
