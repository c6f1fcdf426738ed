/**
 * A failed backend request as the job record keeps it (explained from the
 * error catalogue) and as its transcript line reads.
 */
import type { BackendKind } from '../../config/schema.js';
import type { RequestLogEntry } from '../../shim/request-log/request-log.js';
import { explainBackendError, explanationText } from '../../shim/translate/error-catalogue.js';
import type { BackendErrorEvent } from '../record/job-record.js';

const MAX_ERROR_CHARS = 300;

/** The backend error a request log entry reports, explained; undefined for a request that went well or that the client abandoned. */
export function backendError(entry: RequestLogEntry, backend: BackendKind): BackendErrorEvent | undefined {
  if (entry.status === 0 || (entry.status < 400 && entry.error === undefined)) return undefined;
  const message = (entry.original_error ?? entry.error ?? '').slice(0, MAX_ERROR_CHARS);
  const facts = { status: entry.backend_status ?? entry.status, text: `${entry.original_error ?? ''}\n${entry.error ?? ''}`, source: entry.error_source, path: entry.path, backend };
  const explanation = explainBackendError(facts);
  return { at: entry.t, request: entry.request, status: entry.backend_status ?? entry.status, source: entry.error_source, message, explanation: { ...explanation, causes: [...explanation.causes], try: [...explanation.try] } };
}

const SOURCE_WORDS: Readonly<Record<string, string>> = {
  http: 'answered HTTP',
  stream: 'sent an error inside its HTTP 200 stream',
  cut: 'cut the stream',
  connect: 'could not be reached',
  answer: 'answered malformed',
  outage: 'did not come back in time',
};

export function backendErrorLine(e: BackendErrorEvent): string {
  const how = e.source === 'http' || e.source === undefined ? `answered HTTP ${e.status}` : (SOURCE_WORDS[e.source] ?? e.source);
  return `${e.at.slice(11, 19)} backend error on request ${e.request ?? '?'}: the server ${how}: ${e.message}\n  ${explanationText(e.explanation)}`;
}
