/**
 * The page's files: our own HTML/CSS/JS from src/dashboard/public (no build
 * step) and uPlot from node_modules (no CDN: the dashboard must work offline).
 * Only the names listed here are served, so no request path reaches the disk.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

// src/dashboard/*.ts and dist/dashboard/*.js are both two levels below the package root.
const PUBLIC_DIR = fileURLToPath(new URL('../../src/dashboard/public/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

const OWN = ['index.html', 'style.css', 'app.mjs', 'dom.mjs', 'endpoints-view.mjs', 'jobs-table.mjs', 'job-page.mjs', 'charts.mjs', 'menu-view.mjs'];
const UPLOT = ['uPlot.iife.min.js', 'uPlot.min.css'];

function uplotDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
}

function typeOf(name: string): string {
  return TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
}

export interface AssetStore {
  /** The asset, or undefined for any name not on the list. */
  get(name: string): Promise<Asset | undefined>;
}

export function createAssetStore(): AssetStore {
  const cache = new Map<string, Promise<Asset>>();
  return {
    get(name) {
      let file: string;
      if (OWN.includes(name)) file = join(PUBLIC_DIR, name);
      else if (UPLOT.includes(name)) file = join(uplotDir(), name);
      else return Promise.resolve(undefined);
      let asset = cache.get(name);
      if (asset === undefined) {
        asset = readFile(file).then((body) => ({ body, type: typeOf(name) }));
        // A failed read is retried next time rather than remembered.
        asset.catch(() => cache.delete(name));
        cache.set(name, asset);
      }
      return asset;
    },
  };
}
