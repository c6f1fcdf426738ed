/**
 * The shim with the real Claude Code CLI against a strict-Qwen llama-server
 * simulator: what fails without the shim works through it; overflow compacts;
 * a loading model is waited for.
 */
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { createRequestLog } from '../../src/shim/request-log/request-log.js';
import { silentLogger } from '../../src/log.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/index.js';
import { makeRepo } from '../helpers/git-repo.js';
import { claudeEnv, runClaudeP } from './claude-cli.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

interface Rig {
  sim: Simulator;
  repo: string;
  home: string;
  shim: ShimServer;
  baseUrl: string;
  requestsLog: string;
}

async function rig(options: SimulatorOptions): Promise<Rig> {
  const sim = await startSimulator(options);
  cleanups.push(() => sim.close());
  const home = mkdtempSync(join(tmpdir(), 'la-home-'));
  const repo = makeRepo();
  const shim = createShimServer(silentLogger);
  cleanups.push(() => shim.close());
  const requestsLog = join(home, 'requests.jsonl');
  const log = createRequestLog(requestsLog, undefined, () => undefined);
  cleanups.push(() => log.close());
  const route = await shim.open({
    jobId: 'e2e',
    endpoint: { name: 'gpu', base_url: sim.url, backend: options.flavor },
    servedModel: sim.modelId,
    context: options.context,
    log,
  });
  return { sim, repo, home, shim, baseUrl: route.baseUrl, requestsLog };
}

describe('claude -p through the shim', () => {
  it('writes the file through the shim; the same run straight at the server fails on the chat template', async () => {
    const r = await rig({ flavor: 'llama.cpp', strictQwen: true });
    const script = [
      { toolUse: { name: 'Write', input: { file_path: 'hello.txt', content: 'hello world\n' } } },
      { text: 'Wrote hello.txt.' },
    ] as const;
    r.sim.setScript(script);
    const through = await runClaudeP('Create hello.txt containing "hello world".', r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c1'), r.sim.modelId));
    expect(through.result).toMatchObject({ is_error: false, result: 'Wrote hello.txt.' });
    expect(readFileSync(join(r.repo, 'hello.txt'), 'utf8')).toBe('hello world\n');

    const repo2 = makeRepo();
    const direct = await runClaudeP(
      'Create hello.txt containing "hello world".',
      repo2,
      claudeEnv(r.sim.url, r.home, join(r.home, 'c2'), r.sim.modelId, { CLAUDE_CODE_MAX_RETRIES: '1' }),
    );
    expect(direct.result?.is_error).toBe(true);
    expect(direct.result?.result).toContain('System message must be at the beginning');
    expect(existsSync(join(repo2, 'hello.txt'))).toBe(false);
  });

  it('turns a llama.cpp context overflow into "prompt is too long": Claude Code compacts and carries on', async () => {
    // Claude Code's first request is ~12.5k tokens as the simulator counts; each file read adds ~1.5k,
    // so the ninth request no longer fits a 24k slot. Claude Code must compact, then finish.
    const r = await rig({ flavor: 'llama.cpp', strictQwen: true, context: 24576 });
    writeFileSync(join(r.repo, 'part.txt'), `${'lorem ipsum dolor sit amet '.repeat(220)}\n`);
    const compacted = (): boolean => r.sim.requests.some((q) => q.bodyText.includes('CRITICAL: Respond with TEXT ONLY'));
    r.sim.setScript((req) =>
      compacted()
        ? { text: 'Finished after compaction.' }
        : { toolUse: { name: 'Bash', input: { command: `cat part.txt # read ${req.assistantTurns}`, description: 'Read a part' } } },
    );
    const run = await runClaudeP('Read part.txt again and again until you know it by heart.', r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId));
    const log = readFileSync(r.requestsLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: number; error?: string });
    const overflow = log.find((e) => e.status === 400);
    // llama.cpp rejects prompt >= n_ctx, so the largest prompt it takes is n_ctx − 1.
    expect(overflow?.error).toMatch(/^prompt is too long: \d+ tokens > 24575 maximum$/);
    expect(compacted()).toBe(true);
    expect(run.result).toMatchObject({ is_error: false, result: 'Finished after compaction.' });
  });

  it('waits for a model that is still loading, then completes', async () => {
    const r = await rig({ flavor: 'llama.cpp', strictQwen: true, loadingMs: 2500 });
    r.sim.setScript([{ text: 'Loaded and answering.' }]);
    const run = await runClaudeP('Say hello.', r.repo, claudeEnv(r.baseUrl, r.home, join(r.home, 'c'), r.sim.modelId));
    expect(run.result).toMatchObject({ is_error: false, result: 'Loaded and answering.' });
    const statuses = r.sim.requests.filter((q) => q.path === '/v1/messages').map((q) => q.status);
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(200);
  });
});
