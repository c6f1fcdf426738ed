/**
 * Reads the page's files: ours from src/dashboard/public (no build step) and
 * uPlot's from node_modules. The plugin bundle has neither beside it, so
 * scripts/bundle.mjs replaces this module with one that holds the same files'
 * bytes; static-assets.ts decides which names are served.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type AssetSource = 'own' | 'uplot';

// src/dashboard/*.ts and dist/dashboard/*.js are both two levels below the package root.
const PUBLIC_DIR = fileURLToPath(new URL('../../src/dashboard/public/', import.meta.url));

function uplotDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
}

export function readAssetFile(source: AssetSource, name: string): Promise<Buffer> {
  return readFile(join(source === 'own' ? PUBLIC_DIR : uplotDir(), name));
}
