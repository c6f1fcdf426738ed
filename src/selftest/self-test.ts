/**
 * `localagents doctor --self-test`: one real delegated job end to end — the
 * bundled Claude Code binary, the shim, a worktree in a throwaway repository —
 * against the scripted model on loopback. Everything it creates lives in one
 * temporary folder (HOME, CLAUDE_CONFIG_DIR, state, repository), removed on
 * success and kept as evidence on failure. It reads and writes no models.yaml.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../app.js';
import type { Config } from '../config/schema.js';
import { defaultsSchema } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { claudeVersion, findClaudeCode, NO_CLAUDE_CODE, SOURCE_WORDS } from '../jobs/claude-binary.js';
import { FINISHED, type JobRecord } from '../jobs/job-record.js';
import type { Logger } from '../log.js';
import { SELFTEST_MODEL, startScriptedBackend, type ScriptedBackend } from './scripted-backend.js';
import { makeThrowawayRepo } from './throwaway-repo.js';
import { sandboxProblem } from '../jobs/sandbox/preflight.js';

export interface Stage {
  readonly name: string;
  readonly ok: boolean;
  /** Passed, with something the user should act on (an optional platform piece is missing). */
  readonly warn?: boolean;
  readonly detail: string;
  readonly fixes: readonly string[];
}

export interface SelfTestReport {
  readonly ok: boolean;
  readonly stages: readonly Stage[];
  /** The folder kept for inspection when something failed; undefined after a clean pass. */
  readonly evidence: string | undefined;
  readonly job: JobRecord | undefined;
}

export interface SelfTestOptions {
  /** The caller's environment: PATH, LANG, TERM and the like are passed on; nothing of HOME or Claude's config is. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /** Called as each stage ends, so a terminal shows progress. */
  readonly onStage?: (stage: Stage) => void;
  readonly claudeExecutable?: string | undefined;
  /** How long the job may take (default 120 s; a cold first start of Claude Code takes a few seconds). */
  readonly timeoutS?: number;
}

export const SELFTEST_FILE = 'SELFTEST.md';
export const SELFTEST_CONTENT = '# localagents self-test\n\nWritten by Claude Code through the localagents shim.\n';
const SELFTEST_RESULT = `Wrote ${SELFTEST_FILE}.`;
/** Where the job's Bash tries to write, outside its worktree: the sandbox must refuse it. */
const SANDBOX_PROOF = 'sandbox-escape.txt';
const TASK = `Create ${SELFTEST_FILE} with a heading "localagents self-test" and one line saying who wrote it. Then report what you did.`;
/** What a throwaway session inherits of the caller's environment. */
export const PASSED_ON = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'USER', 'LOGNAME', 'SHELL', 'TZ'];

/** The whole registry, in memory: one endpoint, the scripted model as the default. */
export function selfTestConfig(baseUrl: string, root: string, sandboxed: boolean): Config {
  return {
    path: undefined,
    sidecarPath: join(root, 'models.local.yaml'), // never written: the self-test registers nothing
    endpoints: [{ name: 'selftest', base_url: baseUrl, backend: 'other', notes: 'built-in scripted model (doctor --self-test)' }],
    models: [],
    defaults: defaultsSchema.parse({ model: SELFTEST_MODEL, max_turns: 6, timeout_s: 120, queue_grace_s: 0, sandbox: { enabled: sandboxed } }),
    searched: [],
    warnings: [],
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export async function runSelfTest(options: SelfTestOptions): Promise<SelfTestReport> {
  const stages: Stage[] = [];
  const pass = (name: string, detail: string): void => {
    const stage = { name, ok: true, detail, fixes: [] };
    stages.push(stage);
    options.onStage?.(stage);
  };
  const warn = (name: string, detail: string, fixes: readonly string[]): void => {
    const stage = { name, ok: true, warn: true, detail, fixes };
    stages.push(stage);
    options.onStage?.(stage);
  };
  const fail = (name: string, detail: string, fixes: readonly string[] = []): void => {
    const stage = { name, ok: false, detail, fixes };
    stages.push(stage);
    options.onStage?.(stage);
  };

  const root = await realpath(await mkdtemp(join(options.env.TMPDIR || tmpdir(), 'localagents-selftest-')));
  const dirs = { home: join(root, 'home'), claude: join(root, 'claude-config'), state: join(root, 'state'), repo: join(root, 'repo'), tmp: join(root, 'tmp') };
  let backend: ScriptedBackend | undefined;
  let app: App | undefined;
  let job: JobRecord | undefined;

  const body = async (): Promise<boolean> => {
    const outside = join(dirs.home, SANDBOX_PROOF);
    backend = await startScriptedBackend((turns) =>
      turns === 0
        ? { text: 'Creating the file.', toolUse: { name: 'Write', input: { file_path: SELFTEST_FILE, content: SELFTEST_CONTENT } } }
        : turns === 1
          ? { text: 'Trying a write outside the tree.', toolUse: { name: 'Bash', input: { command: `echo escaped > ${outside}`, description: 'Write outside the worktree' } } }
          : { text: SELFTEST_RESULT },
    );
    pass('config', `built in memory (endpoint selftest → ${backend.url}); no models.yaml read or written`);
    pass('scripted backend', `${backend.url} serves ${SELFTEST_MODEL} (Anthropic Messages, SSE, count_tokens)`);

    const found = options.claudeExecutable ? { path: options.claudeExecutable, source: 'given' as const } : findClaudeCode({ env: options.env });
    if (found === undefined) {
      fail('claude code', NO_CLAUDE_CODE, ['npm ci in the localagents checkout installs the Agent SDK and its Claude Code']);
      return false;
    }
    const claude = found.path;
    try {
      pass('claude code', `${await claudeVersion(claude, { PATH: options.env.PATH, HOME: dirs.home })} at ${claude} (${SOURCE_WORDS[found.source]})`);
    } catch (err) {
      fail('claude code', errorMessage(err), ['reinstall dependencies (npm ci); the binary ships in @anthropic-ai/claude-agent-sdk']);
      return false;
    }

    const problem = await sandboxProblem({ platform: process.platform, path: options.env.PATH, claudePath: claude, env: { PATH: options.env.PATH, HOME: dirs.home } });
    const sandboxed = problem === undefined;
    if (sandboxed) pass('sandbox', `${process.platform === 'linux' ? 'bubblewrap and socat found and working' : 'the platform sandbox is there'}; the job runs in Claude Code's sandbox`);
    else warn('sandbox', `${problem.what} — this self-test runs its job unsandboxed, and delegated jobs refuse to start until that is fixed`, problem.fixes);

    try {
      await makeThrowawayRepo(dirs.repo);
      pass('throwaway repo', `${dirs.repo} (git, one commit)`);
    } catch (err) {
      fail('throwaway repo', errorMessage(err), ['install git and make sure it is on PATH']);
      return false;
    }

    await Promise.all([dirs.home, dirs.claude, dirs.tmp].map((d) => mkdir(d, { recursive: true })));
    const env: Record<string, string | undefined> = { HOME: dirs.home, CLAUDE_CONFIG_DIR: dirs.claude, TMPDIR: dirs.tmp, LOCALAGENTS_STATE_DIR: dirs.state };
    for (const key of PASSED_ON) if (options.env[key] !== undefined) env[key] = options.env[key];
    const config = selfTestConfig(backend.url, root, sandboxed);
    app = createApp({ loadConfig: () => Promise.resolve(config), stateDir: dirs.state, cwd: dirs.repo, env, log: options.log, claudeExecutable: claude });

    const started = await app.jobs.start({ task: TASK, model: SELFTEST_MODEL, cwd: dirs.repo, isolation: 'worktree' });
    pass('job started', `${started.id} (${started.status}), isolation worktree, job folder ${app.jobPaths(started.id).dir}`);

    job = await app.jobs.wait(started.id, options.timeoutS ?? 120);
    if (!FINISHED.has(job.status)) job = await app.jobs.cancel(started.id);
    const transcript = app.jobPaths(started.id).transcript;

    const written = job.worktree?.kept ? join(job.worktree.path, SELFTEST_FILE) : undefined;
    const content = written ? await readFile(written, 'utf8').catch(() => undefined) : undefined;
    if (content === SELFTEST_CONTENT && !(await exists(join(dirs.repo, SELFTEST_FILE)))) {
      pass('file written in worktree', `${written ?? ''} (the caller's tree is untouched)`);
    } else {
      fail('file written in worktree', written ? `${written} is ${content === undefined ? 'missing' : 'not what the model wrote'}` : 'no worktree was kept', [`read ${transcript}`]);
    }

    if (job.status === 'succeeded' && job.result === SELFTEST_RESULT) {
      pass('job succeeded', `${plural(job.num_turns, 'turn')}, ${plural(job.tool_calls, 'tool call')}, ${plural(job.requests, 'model request')} through the shim; result: ${job.result}`);
    } else {
      fail('job succeeded', `${job.status}${job.error ? `: ${job.error}` : ''}`, [`read ${transcript} and ${app.jobPaths(started.id).requests}`]);
    }

    if (sandboxed) {
      const refused = job.sandbox?.refusals ?? 0;
      if (!(await exists(outside)) && refused > 0) pass('sandbox holds', `the job's Bash could not write ${outside} outside its worktree (${plural(refused, 'refusal')} in the transcript)`);
      else fail('sandbox holds', (await exists(outside)) ? `the job's Bash wrote ${outside}, outside its worktree` : 'the job never tried the write outside its tree', [`read ${transcript}`]);
    }

    if (job.worktree?.kept && job.worktree.diffstat.includes(SELFTEST_FILE)) {
      pass('worktree kept', `${job.worktree.path} on ${job.worktree.branch}: ${job.worktree.diffstat.split('\n').map((l) => l.trim()).join('; ')}`);
    } else {
      fail('worktree kept', job.worktree ? `kept=${job.worktree.kept}, diffstat "${job.worktree.diffstat}"` : 'the record has no worktree');
    }
    return stages.every((s) => s.ok);
  };

  let passed = false;
  try {
    passed = await body();
  } catch (err) {
    fail('self-test', errorMessage(err), ['run again with LOCALAGENTS_LOG=debug for details']);
  } finally {
    // Each teardown step runs even if the one before throws.
    try {
      await app?.close();
    } finally {
      await backend?.close();
    }
  }

  if (passed) {
    try {
      await rm(root, { recursive: true, force: true });
      pass('cleanup', `removed ${root} (worktree, branch, repository, state, Claude Code config)`);
    } catch (err) {
      fail('cleanup', `could not remove ${root}: ${errorMessage(err)}`, [`remove it by hand: rm -rf ${root}`]);
    }
  } else {
    const evidence = { name: 'cleanup', ok: true, detail: `skipped: kept ${root} as evidence`, fixes: [`job folder: ${join(dirs.state, 'jobs')} (transcript.txt, requests.jsonl); Claude Code config: ${dirs.claude}; remove it all with rm -rf ${root}`] };
    stages.push(evidence);
    options.onStage?.(evidence);
  }
  const ok = stages.every((s) => s.ok);
  return { ok, stages, evidence: ok ? undefined : root, job };
}
