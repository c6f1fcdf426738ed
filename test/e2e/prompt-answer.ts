/**
 * A client whose tool calls time out (the official SDK Client's request timeout) completes a job several times
 * longer than that limit through the prompt-answer path: run_agent(wait_s) then wait_job(timeout_s), each call
 * answering before the limit. Five Bash turns of `stepMs` each, paced by the simulator.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { Simulator } from '../sim/index.js';
import { ok, type Connected } from './harness.js';

export async function promptAnswerScenario(mcp: Connected, sim: Simulator, { limitMs, stepMs }: { limitMs: number; stepMs: number }): Promise<void> {
  sim.setScript([
    ...Array.from({ length: 5 }, (_, i) => ({ toolUse: { name: 'Bash', input: { command: `echo step ${i + 1}`, description: `Step ${i + 1}` } }, delayMs: stepMs })),
    { text: 'All five steps ran.' },
  ]);
  const waitS = Math.floor((limitMs * 0.8) / 1000);
  const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> =>
    ok((await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: limitMs })) as CallToolResult);
  let record = await call('run_agent', { task: 'Run echo step 1 to 5, one per turn.', wait_s: waitS });
  expect(record.status).toBe('running');
  let calls = 1;
  while (record.status === 'running' || record.status === 'queued') {
    record = await call('wait_job', { job_id: record.id, timeout_s: waitS });
    calls += 1;
  }
  expect(record).toMatchObject({ status: 'succeeded', result: 'All five steps ran.', tool_calls: 5 });
  expect(calls).toBeGreaterThanOrEqual(3);
}
