/**
 * The per-job values of one request (shim/rewrite/per-job-values.ts): the ones the job gave its route, and Claude
 * Code's session id, which it sends with every request in `x-claude-code-session-id` (2.1.x; without it the id stays
 * as it is and only the cache suffers).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { PerJobValue } from './rewrite/per-job-values.js';
import type { RouteSpec } from './routes.js';

export const SESSION_ID_NAME = '{session-id}';

/** Only a UUID is named: a short or odd header value would rewrite unrelated text of the block. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requestJobValues(spec: RouteSpec, headers: IncomingHttpHeaders): PerJobValue[] {
  const session = headers['x-claude-code-session-id'];
  const values = [...(spec.perJobValues?.() ?? [])];
  if (typeof session === 'string' && UUID.test(session)) values.push({ name: SESSION_ID_NAME, value: session });
  return values;
}
