/** However many pages watch, the endpoints are probed at most once per interval. */
import { describe, expect, it } from 'vitest';
import { throttleListing } from '../../src/dashboard/throttled-listing.js';
import type { ModelListing } from '../../src/registry/model-list.js';

const LISTING: ModelListing = { config: '/tmp/models.yaml', endpoints: [], menu: [], default_model: undefined, server_cwd: '/tmp', setting_sources: ['project', 'local'], warnings: [] };

describe('throttleListing', () => {
  it('shares one probe among concurrent callers and reuses it inside the interval', async () => {
    let now = 1_000_000;
    let probes = 0;
    const listing = throttleListing(
      async () => {
        probes++;
        await new Promise((r) => setTimeout(r, 5));
        return LISTING;
      },
      2000,
      () => now,
    );
    await Promise.all(Array.from({ length: 20 }, () => listing.get()));
    expect(probes).toBe(1);
    now += 1999;
    await listing.get();
    expect(probes).toBe(1);
    now += 1;
    await listing.get();
    expect(probes).toBe(2);
  });

  it('shows a failing config as an error, and does not retry it faster than a good one', async () => {
    let now = 0;
    let probes = 0;
    const listing = throttleListing(
      () => {
        probes++;
        return Promise.reject(new Error('models.yaml line 3: unknown key `endpoints.gpu.baseurl`'));
      },
      2000,
      () => now,
    );
    const view = await listing.get();
    expect(view.error).toContain('unknown key');
    expect(view.endpoints).toEqual([]);
    now += 500;
    await listing.get();
    expect(probes).toBe(1);
  });
});
