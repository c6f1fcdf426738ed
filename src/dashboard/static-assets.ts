/**
 * The page's files: our own HTML/CSS/JS and uPlot (no CDN: the dashboard must
 * work offline), read through asset-files.ts (from disk, or from the plugin
 * bundle itself). Only the names listed here are served, so no request path
 * reaches the disk.
 */
import { readAssetFile, type AssetSource } from './asset-files.js';

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

export const OWN_ASSETS = ['index.html', 'style.css', 'app.mjs', 'dom.mjs', 'endpoints-view.mjs', 'jobs-table.mjs', 'job-page.mjs', 'charts.mjs', 'menu-view.mjs', 'usage-view.mjs'];
/** uPlot's files in its dist/; scripts/bundle.mjs embeds the same two. */
export const UPLOT_ASSETS = ['uPlot.iife.min.js', 'uPlot.min.css'];

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
      let source: AssetSource;
      if (OWN_ASSETS.includes(name)) source = 'own';
      else if (UPLOT_ASSETS.includes(name)) source = 'uplot';
      else return Promise.resolve(undefined);
      let asset = cache.get(name);
      if (asset === undefined) {
        asset = readAssetFile(source, name).then((body) => ({ body, type: typeOf(name) }));
        // A failed read is retried next time rather than remembered.
        asset.catch(() => cache.delete(name));
        cache.set(name, asset);
      }
      return asset;
    },
  };
}
