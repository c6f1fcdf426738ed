/**
 * Builds the app for one command and closes it afterwards, whatever happens.
 * Closing waits for jobs this process runs (only `run` has any).
 */
import type { App } from '../app.js';
import type { Logger } from '../log.js';

export interface AppContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
}

export async function withApp<T>(ctx: AppContext, configPath: string | undefined, use: (app: App) => Promise<T>, log: Logger = ctx.log): Promise<T> {
  // Loaded here, not at the top: commands that never build the app start without it.
  const { createApp } = await import('../app.js');
  const app = createApp({ configPath, cwd: ctx.cwd, env: ctx.env, log });
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}
