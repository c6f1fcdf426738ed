/**
 * Child process for the concurrency and crash tests: upserts `count` endpoints named
 * `${prefix}-${i}` into the sidecar given on the command line, all at once; with
 * `forever`, one after another until it is killed.
 * Run as: node --import tsx test/config/upsert-child.ts SIDECAR PREFIX COUNT|forever
 */
import { upsertSidecarEntry } from '../../src/config/sidecar.js';

const [sidecarPath, prefix, count] = process.argv.slice(2);
if (sidecarPath === undefined || prefix === undefined || count === undefined) throw new Error('usage: SIDECAR PREFIX COUNT|forever');
const upsert = (i: number): Promise<unknown> =>
  upsertSidecarEntry(sidecarPath, 'endpoints', `${prefix}-${i}`, { base_url: `http://127.0.0.1:${9000 + (i % 1000)}` });
if (count === 'forever') {
  for (let i = 0; ; i++) await upsert(i);
} else {
  await Promise.all(Array.from({ length: Number(count) }, (_, i) => upsert(i)));
}
