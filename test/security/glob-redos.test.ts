/**
 * Class 9 of issue #11: a model glob from a tool call or a config file cannot
 * stall the server's one thread (which also carries every job's shim). The
 * glob matcher is linear in pattern × id; a backtracking regex took ~20 s for
 * `**********x` and grew ×5 per extra `*`. The matcher runs in a child
 * process, so a regression fails on its time limit instead of hanging the run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globMatcher } from '../../src/registry/match.js';
import { connect, makeDirs, ok, REPO_ROOT, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { DEFAULT_LLAMA_MODEL, startSimulator, type Simulator } from '../sim/index.js';

const EVIL = `${'*'.repeat(16)}x`;

/**
 * The worst patterns for a backtracking matcher, each against a 200-character id, in the source module. A linear
 * matcher needs milliseconds; a backtracking one, ×5 per `*`, would need ages for 40: the child's time limit ends
 * it, so the test asserts no wall-clock duration of its own.
 */
function matchInChild(): { status: number | null; stdout: string } {
  const script = `
    const { matchName } = await import(${JSON.stringify(join(REPO_ROOT, 'src', 'registry', 'match.ts'))});
    const id = 'a'.repeat(200);
    const patterns = ['*'.repeat(40) + 'x', '*a'.repeat(40) + 'x', '?*'.repeat(40) + 'b', '*[a]'.repeat(40) + '[b]'];
    for (const pattern of patterns) if (matchName(pattern, [id]) !== undefined) throw new Error('matched ' + pattern);
    console.log('none matched');`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return { status: child.status, stdout: child.stdout };
}

describe('linear-time globs', () => {
  it('matches 40 `*` against a 200-character id without backtracking (a backtracking matcher is stopped at the time limit)', () => {
    const { status, stdout } = matchInChild();
    expect(status).toBe(0);
    expect(stdout.trim()).toBe('none matched');
  });

  it('means what the regex-based glob meant: `*`, `?`, classes, ranges, negation, case-insensitive', () => {
    const reference = (pattern: string): RegExp =>
      new RegExp(`^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|\\/[\]]/g, '\\$&'))).join('')}$`, 'is');
    fc.assert(
      fc.property(fc.stringMatching(/^[ab*?]{0,8}$/), fc.stringMatching(/^[abAB]{0,10}$/), (pattern, id) => {
        expect(globMatcher(pattern)(id)).toBe(reference(pattern).test(id));
      }),
      { numRuns: 2000 },
    );
    expect(globMatcher('unsloth/qwen3.?-27b-*')(DEFAULT_LLAMA_MODEL)).toBe(true);
    expect(globMatcher('*[Qq]wen[0-9]*')(DEFAULT_LLAMA_MODEL)).toBe(true);
    expect(globMatcher('*[!u]nsloth*')(DEFAULT_LLAMA_MODEL)).toBe(false);
    expect(globMatcher('[]x]*')(']x')).toBe(true);
    expect(globMatcher('[abc')('[abc')).toBe(true);
  });
});

describe('a hostile glob through the built server', () => {
  let sim: Simulator;
  let dirs: E2EDirs;
  let server: Connected;
  /** Short client timeouts: a stalled server fails the test instead of hanging it. */
  const quick = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 15_000 })) as CallToolResult;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    dirs = makeDirs();
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    server = await connect(dirs);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it(`run_agent(model="${EVIL}") answers model_unavailable at once, and the server keeps answering`, async () => {
    const [run, status] = await Promise.all([quick('run_agent', { wait_s: 0, task: 'Say done.', model: EVIL }), quick('jobs', {})]);
    expect(run.isError).toBe(true);
    expect(JSON.stringify(run.content)).toContain(`${EVIL} is not running anywhere`);
    expect(status.isError).toBeFalsy();
  });

  it(`register_model(served_name="${EVIL}") is persisted without slowing later list_models, even after a restart`, async () => {
    ok((await quick('register_model', { name: 'evil', served_name: EVIL })));
    const listed = ok((await quick('list_models', {})));
    expect(listed.menu).toContainEqual(expect.objectContaining({ name: 'evil', live_on: [] }));
    await server.close();
    server = await connect(dirs);
    const again = ok((await quick('list_models', {})));
    expect(again.menu).toContainEqual(expect.objectContaining({ name: 'evil', live_on: [] }));
  }, 60_000);
});
