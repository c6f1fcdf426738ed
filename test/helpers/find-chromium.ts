/**
 * The Chromium the browser tests drive. In order: $CHROMIUM_PATH; the build
 * shipped inside the @sparticuz/chromium devDependency (linux x64: no download
 * from another host, `npm ci` is enough); a `chromium` / `chromium-browser` /
 * `google-chrome` on PATH. None: the test fails with the one line that says how
 * to get one (the README shows the same line) — never a silent skip.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const NO_BROWSER =
  'No Chromium for the dashboard test: on linux x64 `npm ci` installs one (@sparticuz/chromium); elsewhere install Chromium (apt-get install chromium, brew install --cask chromium) or set CHROMIUM_PATH=/path/to/chrome.';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      if (dir && executable(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/** Extracts the packaged build (once per machine, into the temp folder) when this platform has one. */
async function packaged(): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  try {
    const { default: sparticuz } = await import('@sparticuz/chromium');
    return await sparticuz.executablePath();
  } catch {
    return undefined;
  }
}

/** `packaged: false` leaves out the devDependency's build (the test of the no-browser message). */
export async function findChromium(env: NodeJS.ProcessEnv = process.env, opts: { packaged?: boolean } = {}): Promise<string> {
  const fromEnv = env.CHROMIUM_PATH && executable(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  const found = fromEnv ?? (opts.packaged === false ? undefined : await packaged()) ?? onPath(env);
  if (found === undefined) throw new Error(NO_BROWSER);
  return found;
}
