/** A throwaway directory per test, and small file helpers for config tests. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** Writes `text` at `relative` (creating parent folders) and returns the absolute path. */
  write(relative: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function makeTempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'localagents-config-'));
  return {
    path,
    async write(relative: string, text: string): Promise<string> {
      const file = join(path, relative);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      return file;
    },
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

/** A minimal valid models.yaml with one endpoint named `name`. */
export function oneEndpoint(name: string, baseUrl = 'http://127.0.0.1:8080'): string {
  return `endpoints:\n  ${name}:\n    base_url: ${baseUrl}\n`;
}
