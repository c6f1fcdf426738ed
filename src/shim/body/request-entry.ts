/**
 * What requests.jsonl says about one request through the shim: what the body
 * was, what the shim rewrote, what was wrong with an answer. Built from the
 * body and the answer, never from headers, so no credential can reach it
 * (request-logger.ts writes the line).
 */
import type { BodyView } from '../json/json-body.js';
import type { NormaliseNotes } from './normalise.js';
import type { UsageResult } from './usage.js';
import { describeMedia } from './media.js';

export function describeRewrites(notes: NormaliseNotes | undefined): string[] {
  if (notes === undefined) return [];
  const out: string[] = [];
  if (notes.foldedSystemMessages > 0) out.push(`folded ${notes.foldedSystemMessages} system message(s) in place`);
  if (notes.perJobValuesNamed !== undefined) out.push(`named ${notes.perJobValuesNamed} per-job value(s) in the environment block`);
  if (notes.billingHashNeutralised) out.push('neutralised billing-header cch');
  if (notes.modelRewrittenFrom !== undefined) out.push(`model ${notes.modelRewrittenFrom} → served id`);
  if (notes.maxTokensLoweredFrom !== undefined) out.push(`max_tokens lowered from ${notes.maxTokensLoweredFrom}`);
  if (notes.strippedFields?.length) out.push(`stripped ${notes.strippedFields.join(', ')}`);
  if (notes.toolTurnTextMoved !== undefined) out.push(`moved the text of ${notes.toolTurnTextMoved} tool-result message(s) into the result`);
  if (notes.toolIdsRewritten !== undefined) out.push(`${notes.toolIdsRewritten} tool call id(s) to 9 letters and digits`);
  if (notes.referenceBlocksAsText) out.push(`${notes.referenceBlocksAsText} tool_reference/search_result block(s) → text`);
  const media = describeMedia(notes.mediaReplaced ?? []);
  if (media !== undefined) out.push(media);
  return out;
}

/**
 * What is wrong with a 200 answer to /v1/messages, for requests.jsonl. Claude
 * Code copes with each (measured: it retries an unfinished stream, and answers
 * a non-stream or unparseable one with a non-streaming resend), so the bytes
 * pass unchanged; the log says why the next request came.
 */
export function answerProblem(wantedStream: boolean, contentType: string, usage: UsageResult | undefined, bodyIsJson: boolean): string | undefined {
  const isSse = contentType.includes('text/event-stream');
  if (wantedStream && !isSse) return `the backend answered a streaming request with ${contentType || 'no content type'}, not an event stream`;
  if (!isSse && !bodyIsJson) return 'the backend answered 200 with a body that is not JSON';
  if (isSse && usage?.stop_reason === undefined && usage?.error === undefined) return 'the stream ended before the answer was complete (no stop_reason)';
  return undefined;
}

/** What requests.jsonl says about a request body, read from its view (tools counted, not parsed). */
export interface RequestFacts {
  readonly model: string | undefined;
  readonly messages: number | undefined;
  readonly tools: number | undefined;
  readonly stream: boolean;
}

export function requestFacts(view: BodyView): RequestFacts {
  const { model, messages, stream } = view.fields;
  return {
    model: typeof model === 'string' ? model : undefined,
    messages: Array.isArray(messages) ? messages.length : undefined,
    tools: view.toolCount,
    stream: stream === true,
  };
}
