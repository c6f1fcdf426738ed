/**
 * Outages that last minutes, on the simulator (issue 26): past a minute of held requests, and a two-minute model
 * load. They take as long as they say, so they run with the real suite (`npm run test:real`, in CI), not in
 * `npm test`, which has the same cases at seconds (test/reliability/server-outage.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { readRecord, textOf } from '../reliability/in-process.js';
import { downUnderRequests, jobsMidWay, loadUnderJob, outageLasted, waitAll } from '../reliability/outage-bench.js';

describe.concurrent('the model server is gone for minutes under running jobs', () => {
  it("gone for 90 s under 4 running jobs: all succeed (past Claude Code's own retries), jobs(job_id) says what it waits for", async () => {
    const b = await jobsMidWay(4);
    try {
      await downUnderRequests(b, 4);
      await outageLasted(b, b.ids[0]!, 70_000);
      const text = textOf(await b.h.call('jobs', { job_id: b.ids[0]! }));
      expect(text).toMatch(/waiting for the model server: gpu is down \(host is up, nothing listens on 127\.0\.0\.1:\d+ \(nothing started, or wrong port\)\), 1 min( [0-9]+ s)? so far; waiting up to 10 min/);
      await outageLasted(b, b.ids[0]!, 90_000);
      await b.sim.setDown(false);
      const records = await waitAll(b, b.ids);
      for (const r of records) expect(r).toMatchObject({ status: 'succeeded', result: 'Done after the outage.' });
      for (const id of b.ids) expect(readRecord(b.h.dirs, id).outages?.[0]).toMatchObject({ outcome: 'served again' });
    } finally {
      await b.close();
    }
  }, 300_000);

  it('"Loading model" (503) for 2 minutes mid-job: the job waits and succeeds, and says the server is loading', async () => {
    await loadUnderJob(120_000);
  }, 300_000);
});
