/** The caller rig itself: a real Claude Code caller delegates one short job and the rig reports what it cost. */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_USAGE, callerCalls, la, startCallerRig, toolResultTexts, type CallerRig } from './rig.js';

describe('caller rig', { timeout: 240_000 }, () => {
  let rig: CallerRig;
  beforeAll(async () => {
    rig = await startCallerRig({ jobScript: [{ text: 'The job is done.' }] });
  }, 60_000);
  afterAll(async () => rig?.close());

  it('reports turns, tool calls, bytes re-sent and the transcript of a real Claude Code caller', async () => {
    const run = await rig.runCaller('Delegate it.', (req) =>
      callerCalls(req) === 0
        ? { text: 'Delegating.', toolUse: { name: la('run_agent'), input: { task: 'Say the job is done.', wait_s: 60 } } }
        : { text: `Reported: ${toolResultTexts(req).at(-1) ?? ''}` },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.turns).toBe(2);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent']);
    expect(run.resentBytes).toBe(Buffer.byteLength(run.requests[1]!.bodyText, 'utf8'));
    expect(run.surfaceBytes).toBeGreaterThan(500);
    expect(run.result).toContain('The job is done.');
    expect(run.transcriptPath).toBeDefined();
    const transcript = readFileSync(run.transcriptPath!, 'utf8');
    expect(existsSync(run.transcriptPath!)).toBe(true);
    // The scripted usage reaches the caller's transcript as the caller's own figures.
    expect(transcript).toContain(`"output_tokens":${CALLER_USAGE.output_tokens}`);
    expect(rig.jobRecords().map((r) => r.status)).toEqual(['succeeded']);
  });
});
