/**
 * Cross-job prompt-cache reuse on a real llama-server (npm run bench:real): the share of each job's FIRST request
 * that the server took from its cache (`cache_read_input_tokens / (cache_read_input_tokens + input_tokens)` in
 * requests.jsonl), for the second job in one directory, a job in another repository, `isolation: worktree` jobs,
 * and, with --parallel 2, jobs in two repositories alternating. Builds llama-server on first use (test/real).
 * Reports; the ≥ 95% same-directory floor is asserted in test/real/run-agent.real.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { makeRepo } from '../test/helpers/git-repo.js';
import { buildLlamaServer, ensureSource } from '../test/real/build-llama-server.js';
import { startLlamaServer } from '../test/real/llama-server.js';
import { cacheShare, type RequestLine } from '../test/real/mcp.js';
import { ensureTinyModels } from '../test/real/tiny-models.js';

const binary = await buildLlamaServer();
const models = ensureTinyModels(ensureSource());

async function withServer(parallel: number, run: (app: App, state: string) => Promise<void>, extraArgs: readonly string[] = []): Promise<void> {
  const server = await startLlamaServer({ binary, modelFile: models.eos, parallel, slotContext: 65536, extraArgs });
  const root = mkdtempSync(join(tmpdir(), 'la-bench-real-'));
  writeFileSync(join(root, 'models.yaml'), `endpoints:\n  gpu:\n    base_url: ${server.url}\n`);
  const app = createApp({
    configPath: join(root, 'models.yaml'),
    cwd: root,
    env: { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude') },
    log: silentLogger,
    stateDir: join(root, 'state'),
  });
  try {
    await run(app, join(root, 'state'));
  } finally {
    await app.close();
    await server.close();
  }
}

function firstRequest(state: string, id: string): RequestLine | undefined {
  return readFileSync(join(state, 'jobs', id, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RequestLine)
    .find((r) => r.path === '/v1/messages');
}

const rows: string[][] = [];
async function job(app: App, state: string, label: string, cwd: string, task: string, isolation: 'none' | 'worktree' = 'none'): Promise<void> {
  const started = await app.jobs.start({ task, cwd, isolation });
  const done = await app.jobs.wait(started.id, 900);
  const first = firstRequest(state, started.id);
  const cached = first?.usage?.cache_read_input_tokens ?? 0;
  const total = cached + (first?.usage?.input_tokens ?? 0);
  rows.push([label, done.status, `${cached} / ${total}`, `${(cacheShare(first) * 100).toFixed(1)}%`]);
  console.log(rows.at(-1)?.join('  '));
}

const repoA = makeRepo('la-bench-a-');
const repoB = makeRepo('la-bench-b-');
console.log('# first-request cache reuse on a real llama-server (tiny always-EOS model, real Qwen3.5 template)');
await withServer(1, async (app, state) => {
  await job(app, state, '1 slot: repo A, first job (cold)', repoA, 'List the files in pkg.');
  await job(app, state, '1 slot: repo A, second job, same directory', repoA, 'Count the lines of README.md.');
  await job(app, state, '1 slot: repo B after repo A', repoB, 'List the files in pkg.');
  await job(app, state, '1 slot: repo A, worktree job', repoA, 'List the files in pkg.', 'worktree');
  await job(app, state, '1 slot: repo A, second worktree job', repoA, 'Count the lines of README.md.', 'worktree');
});
// llama.cpp picks the idle slot whose cached prompt shares the longest prefix, if above --slot-prompt-similarity
// (default 0.1); a second repository's ~80% match beats an empty slot, so it overwrites the first one's prefix.
// Above that share, an empty slot is taken by LRU instead and each repository keeps its own slot.
for (const [label, extraArgs] of [['2 slots', []], ['2 slots, --slot-prompt-similarity 0.9', ['--slot-prompt-similarity', '0.9']]] as const) {
  await withServer(2, async (app, state) => {
    await job(app, state, `${label}: repo A (cold)`, repoA, 'List the files in pkg.');
    await job(app, state, `${label}: repo B (cold)`, repoB, 'List the files in pkg.');
    await job(app, state, `${label}: repo A again`, repoA, 'Count the lines of README.md.');
    await job(app, state, `${label}: repo B again`, repoB, 'Count the lines of README.md.');
  }, extraArgs);
}
console.log('\n| jobs | status | cached / prompt tokens (first request) | reuse |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
