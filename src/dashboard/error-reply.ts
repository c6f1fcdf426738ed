/**
 * The answer when a dashboard request fails past the front door: a refused request is the
 * caller's to fix (4xx), anything else is this machine's (5xx), in the person wording with
 * the next step on this page. An error we did not raise is logged and answered as internal.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, isLocalAgentsError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import { pathError } from '../path-errors.js';
import { sendJson } from './http-reply.js';

const STATUS: Partial<Record<ErrorCode, number>> = { bad_argument: 400, unknown_job: 404, model_unavailable: 503, backend_error: 502 };
/** The next step on this page, for errors raised below the edges (which name neither a tool nor a command). */
const NEXT_STEP: Partial<Record<ErrorCode, string>> = { unknown_job: 'The jobs table on the first page shows the jobs on record.' };

/** `retry` is the page's last resort: what to open again. A response already under way is cut off instead. */
export function replyWithError(req: IncomingMessage, res: ServerResponse, err: unknown, retry: string, log: Logger): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known = isLocalAgentsError(err) ? err : pathError(err);
  if (known === undefined) {
    log.warn('dashboard: %s %s failed: %s', req.method, req.url?.split('?')[0], errorMessage(err));
    sendJson(res, 500, { error: 'internal', message: errorMessage(err) });
    return;
  }
  const { message } = known.forPerson;
  const hint = known.forPerson.hint ?? NEXT_STEP[known.code] ?? retry;
  sendJson(res, STATUS[known.code] ?? 500, { error: known.code, message: `${message.replace(/[.\s]+$/, '')}. ${hint}` });
}
