/**
 * The prompt-answer path at the figures of issue 37: the official SDK Client with a 60-s request timeout completes a
 * 150-s job (five turns of 30 s, paced by the simulator). Here rather than in npm test, which runs the same scenario
 * scaled down (test/e2e/run-agent.e2e.test.ts), because it holds a test worker for three minutes.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connect, makeDirs, writeConfig, type Connected } from '../e2e/harness.js';
import { promptAnswerScenario } from '../e2e/prompt-answer.js';
import { startSimulator, type Simulator } from '../sim/index.js';

describe('a client whose tool calls time out after 60 s', () => {
  let sim: Simulator;
  let mcp: Connected;

  beforeAll(async () => {
    const dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp' });
    writeConfig(dirs, `defaults:\n  sandbox:\n    enabled: false\nendpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    mcp = await connect(dirs);
  });
  afterAll(async () => {
    await mcp?.close();
    await sim?.close();
  });

  it('completes a 150-s job through the prompt-answer path: run_agent(wait_s) then wait_job(timeout_s)', async () => {
    await promptAnswerScenario(mcp, sim, { limitMs: 60_000, stepMs: 30_000 });
  });
});
