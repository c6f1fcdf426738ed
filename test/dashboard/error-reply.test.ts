/** What a page or a script reads when a dashboard request fails: status, code, the person wording and the next step. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { replyWithError } from '../../src/dashboard/error-reply.js';
import { LocalAgentsError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function answerWith(err: unknown, warnings: string[]): Promise<{ status: number; body: unknown }> {
  const log: Logger = { error() {}, warn: (...args: unknown[]) => void warnings.push(args.join(' ')), info() {}, debug() {} };
  const server = createServer((req, res) => replyWithError(req, res, err, 'Open the printed URL.', log));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/jobs/x?token=secret`);
  return { status: res.status, body: await res.json() };
}

describe('error reply', () => {
  it("answers an unknown job 404 in the person's words, with the next step on this page", async () => {
    const err = new LocalAgentsError('unknown_job', 'no job x on record', { hint: 'Call list_jobs.', forPerson: { message: 'no job x on record.' } });
    expect(await answerWith(err, [])).toEqual({ status: 404, body: { error: 'unknown_job', message: 'no job x on record. The jobs table on the first page shows the jobs on record.' } });
  });

  it('answers a filesystem error in words, and one we did not raise as internal, logged without the query', async () => {
    const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', path: '/state/jobs' });
    const denied = await answerWith(eacces, []);
    expect(denied.status).toBe(500);
    expect(denied.body).toMatchObject({ message: expect.stringContaining('/state/jobs') as unknown });

    const warnings: string[] = [];
    expect(await answerWith(new Error('boom'), warnings)).toEqual({ status: 500, body: { error: 'internal', message: 'boom' } });
    expect(warnings).toEqual(['dashboard: %s %s failed: %s GET /api/jobs/x boom']);
  });
});
