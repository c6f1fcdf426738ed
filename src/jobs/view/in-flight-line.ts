/**
 * One line per open backend request, for job_status, `localagents run`/`log -f`,
 * the transcript and the dashboard alike: phase, how long, prompt, output so
 * far, speed, silence, flags. Pure.
 */
import type { InFlightRequest } from '../record/job-record.js';
import { promptReadWords, roundTokens } from '../tracking/live-requests.js';

/** The request's state without its flags: "request 3: reading the prompt for 14 s, 12k prompt tokens read (0 cached) at ~900 tokens/s, …". */
export function inFlightSummary(r: InFlightRequest, now: Date = new Date()): string {
  const open = Math.max(0, Math.round((now.getTime() - Date.parse(r.started_at)) / 1000));
  const parts = [`request ${r.request}: ${r.phase} for ${open} s`];
  if (r.prompt_tokens !== undefined) parts.push(`prompt ${roundTokens(r.prompt_tokens)} tokens (${roundTokens(r.cached_tokens ?? 0)} cached)`);
  else if (r.prompt_read_tokens !== undefined) {
    parts.push(promptReadWords({ tokens: r.prompt_read_tokens, cached: r.prompt_read_cached ?? 0, perS: r.prompt_read_per_s }, r.prompt_tokens_estimate));
  } else if (r.prompt_tokens_estimate !== undefined) parts.push(`prompt ~${roundTokens(r.prompt_tokens_estimate)} tokens (estimated)`);
  if (r.phase === 'generating') {
    const speed = r.tokens_per_s === undefined ? '' : ` at ${roundTokens(r.tokens_per_s)} tok/s`;
    parts.push(`output ${r.output_tokens_exact ? '' : '~'}${roundTokens(r.output_tokens)} tokens${speed}`);
  }
  parts.push(`last byte ${r.silent_s < 1 ? 'just now' : `${Math.round(r.silent_s)} s ago`}`);
  return parts.join(', ');
}

export function inFlightLine(r: InFlightRequest, now: Date = new Date()): string {
  return [inFlightSummary(r, now), ...r.flags.map((f) => `  ! ${f.message}`)].join('\n');
}
