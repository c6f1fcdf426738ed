/**
 * What a scrolling view (a pipe, `localagents log -f`) says about open
 * requests: a line when one changes phase or gains a flag, a reminder every
 * 15 s while it stays as it was, nothing in between.
 */
import { describe, expect, it } from 'vitest';
import { createInFlightNotes } from '../../src/cli/follow/in-flight-notes.js';
import type { InFlightRequest, JobRecord } from '../../src/jobs/record/job-record.js';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const at = (s: number): Date => new Date(T0 + s * 1000);

function record(...inFlight: InFlightRequest[]): JobRecord {
  return { in_flight: inFlight } as unknown as JobRecord; // only in_flight is read
}

const generating = (output: number, flags: InFlightRequest['flags'] = []): InFlightRequest => ({
  request: 2,
  started_at: at(0).toISOString(),
  phase: 'generating',
  prompt_tokens: 61_000,
  cached_tokens: 58_000,
  output_tokens: output,
  output_tokens_exact: false,
  tokens_per_s: 31.5,
  silent_s: 0.2,
  flags,
});

describe('in-flight notes for a scrolling view', () => {
  it('speaks on a phase change, a new flag and every 15 s, and stays quiet in between', () => {
    const notes = createInFlightNotes();
    const reading: InFlightRequest = { ...generating(0), phase: 'reading the prompt', prompt_tokens: undefined, cached_tokens: undefined, prompt_tokens_estimate: 60_000, tokens_per_s: undefined, silent_s: 3 };
    expect(notes.lines(record(reading), at(3))).toEqual(['10:00:03 request 2: reading the prompt for 3 s, prompt ~60k tokens (estimated), last byte 3 s ago']);
    expect(notes.lines(record(generating(40)), at(5))).toEqual([
      '10:00:05 request 2: generating for 5 s, prompt 61k tokens (58k cached), output ~40 tokens at 32 tok/s, last byte just now',
    ]);
    expect(notes.lines(record(generating(80)), at(10))).toEqual([]);
    expect(notes.lines(record(generating(500)), at(20))).toHaveLength(1);
    const flagged = generating(600, [{ kind: 'repetitive', message: 'repetitive output: the model keeps writing "a b c" over and over' }]);
    expect(notes.lines(record(flagged), at(22))).toEqual([
      '10:00:22 request 2: generating for 22 s, prompt 61k tokens (58k cached), output ~600 tokens at 32 tok/s, last byte just now\n  ! repetitive output: the model keeps writing "a b c" over and over',
    ]);
    expect(notes.lines(record(), at(23))).toEqual([]);
  });

  it('a prompt being read says how much of it the server has read, how fast, and how long the rest takes', () => {
    const notes = createInFlightNotes();
    const reading: InFlightRequest = {
      ...generating(0),
      phase: 'reading the prompt',
      prompt_tokens: undefined,
      cached_tokens: undefined,
      prompt_tokens_estimate: 60_000,
      prompt_read_tokens: 12_000,
      prompt_read_cached: 8_000,
      prompt_read_per_s: 900,
      tokens_per_s: undefined,
      silent_s: 12,
    };
    expect(notes.lines(record(reading), at(12))).toEqual([
      '10:00:12 request 2: reading the prompt for 12 s, 12k of ~60k prompt tokens read (8,000 cached) at ~900 tokens/s: about 53 s left, last byte 12 s ago',
    ]);
    const unknownTotal = { ...reading, prompt_tokens_estimate: undefined, prompt_read_per_s: undefined };
    expect(notes.lines(record(unknownTotal), at(13))).toEqual([]); // same phase, no new flag: quiet
    expect(createInFlightNotes().lines(record(unknownTotal), at(13))).toEqual(['10:00:13 request 2: reading the prompt for 13 s, 12k prompt tokens read (8,000 cached), last byte 12 s ago']);
  });
});
