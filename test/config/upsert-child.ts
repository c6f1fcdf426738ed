/**
 * Child process for the concurrency test: upserts `count` endpoints named
 * `${prefix}-${i}` into the sidecar given on the command line, all at once.
 * Run as: node --import tsx test/config/upsert-child.ts SIDECAR PREFIX COUNT
 */
import { upsertSidecarEntry } from '../../src/config/sidecar.js';

const [sidecarPath, prefix, count] = process.argv.slice(2);
if (sidecarPath === undefined || prefix === undefined || count === undefined) throw new Error('usage: SIDECAR PREFIX COUNT');
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    upsertSidecarEntry(sidecarPath, 'endpoints', `${prefix}-${i}`, { base_url: `http://127.0.0.1:${9000 + i}` }),
  ),
);
