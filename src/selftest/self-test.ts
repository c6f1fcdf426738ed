/**
 * `localagents doctor --self-test`: one real delegated job end to end — the
 * bundled Claude Code binary, the shim, a worktree in a throwaway repository —
 * against the scripted model on loopback. Everything it creates lives in one
 * temporary folder (HOME, CLAUDE_CONFIG_DIR, state, repository), removed on
 * success and kept as evidence on failure. It reads and writes no models.yaml.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../app.js';
import { errorMessage } from '../errors.js';
import { claudeVersion, findClaudeCode, NO_CLAUDE_CODE, SOURCE_WORDS } from '../jobs/claude/claude-binary.js';
import { FINISHED, type JobRecord } from '../jobs/record/job-record.js';
import { sandboxProblem } from '../jobs/sandbox/preflight.js';
import type { Logger } from '../log.js';
import { SELFTEST_MODEL, startScriptedBackend, type ScriptedBackend } from './scripted-backend.js';
import { judgeSelfTestJob, SELFTEST_CONTENT, SELFTEST_FILE, SELFTEST_RESULT } from './self-test-verdict.js';
import { createStageLog, type Stage, type StageLog } from './stages.js';
import { throwawayApp } from './throwaway-app.js';
import { makeThrowawayRepo } from './throwaway-repo.js';

// The stage type doctor's other checks report in too.
export type { Stage } from './stages.js';

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

/** Where the job's Bash tries to write, outside its worktree: the sandbox must refuse it. */
const SANDBOX_PROOF = 'sandbox-escape.txt';
const TASK = `Create ${SELFTEST_FILE} with a heading "localagents self-test" and one line saying who wrote it. Then report what you did.`;

interface Dirs {
  readonly home: string;
  readonly claude: string;
  readonly state: string;
  readonly repo: string;
  readonly tmp: string;
}

/** What the run has opened (closed at its end, whatever happened) and the job it ran. */
interface Opened {
  backend?: ScriptedBackend;
  app?: App;
  job?: JobRecord;
}

export async function runSelfTest(options: SelfTestOptions): Promise<SelfTestReport> {
  const log = createStageLog(options.onStage);
  const root = await realpath(await mkdtemp(join(options.env.TMPDIR || tmpdir(), 'localagents-selftest-')));
  const dirs: Dirs = { home: join(root, 'home'), claude: join(root, 'claude-config'), state: join(root, 'state'), repo: join(root, 'repo'), tmp: join(root, 'tmp') };
  const opened: Opened = {};

  let passed = false;
  try {
    passed = await runStages(options, root, dirs, log, opened);
  } catch (err) {
    log.fail('self-test', errorMessage(err), ['run again with LOCALAGENTS_LOG=debug for details']);
  } finally {
    // Each teardown step runs even if the one before throws.
    try {
      await opened.app?.close();
    } finally {
      await opened.backend?.close();
    }
  }

  if (passed) {
    try {
      await rm(root, { recursive: true, force: true });
      log.pass('cleanup', `removed ${root} (worktree, branch, repository, state, Claude Code config)`);
    } catch (err) {
      log.fail('cleanup', `could not remove ${root}: ${errorMessage(err)}`, [`remove it by hand: rm -rf ${root}`]);
    }
  } else {
    log.add({ name: 'cleanup', ok: true, detail: `skipped: kept ${root} as evidence`, fixes: [`job folder: ${join(dirs.state, 'jobs')} (transcript.txt, requests.jsonl); Claude Code config: ${dirs.claude}; remove it all with rm -rf ${root}`] });
  }
  return { ok: log.ok, stages: log.stages, evidence: log.ok ? undefined : root, job: opened.job };
}

/** Every stage up to the verdict on the job; false as soon as one fails that later ones need. */
async function runStages(options: SelfTestOptions, root: string, dirs: Dirs, log: StageLog, opened: Opened): Promise<boolean> {
  const outside = join(dirs.home, SANDBOX_PROOF);
  const backend = (opened.backend = await startScriptedBackend((turns) =>
    turns === 0
      ? { text: 'Creating the file.', toolUse: { name: 'Write', input: { file_path: SELFTEST_FILE, content: SELFTEST_CONTENT } } }
      : turns === 1
        ? { text: 'Trying a write outside the tree.', toolUse: { name: 'Bash', input: { command: `echo escaped > ${outside}`, description: 'Write outside the worktree' } } }
        : { text: SELFTEST_RESULT },
  ));
  log.pass('config', `built in memory (endpoint selftest → ${backend.url}); no models.yaml read or written`);
  log.pass('scripted backend', `${backend.url} serves ${SELFTEST_MODEL} (Anthropic Messages, SSE, count_tokens)`);

  const claude = await checkClaudeCode(options, dirs, log);
  if (claude === undefined) return false;

  const problem = await sandboxProblem({ platform: process.platform, path: options.env.PATH, claudePath: claude, env: { PATH: options.env.PATH, HOME: dirs.home } });
  const sandboxed = problem === undefined;
  if (sandboxed) log.pass('sandbox', `${process.platform === 'linux' ? 'bubblewrap and socat found and working' : 'the platform sandbox is there'}; the job runs in Claude Code's sandbox`);
  else log.warn('sandbox', `${problem.what} — this self-test runs its job unsandboxed, and delegated jobs refuse to start until that is fixed`, problem.fixes);

  try {
    await makeThrowawayRepo(dirs.repo);
    log.pass('throwaway repo', `${dirs.repo} (git, one commit)`);
  } catch (err) {
    log.fail('throwaway repo', errorMessage(err), ['install git and make sure it is on PATH']);
    return false;
  }

  await Promise.all([dirs.home, dirs.claude, dirs.tmp].map((d) => mkdir(d, { recursive: true })));
  const app = (opened.app = throwawayApp({ root, dirs, env: options.env, backendUrl: backend.url, sandboxed, claudePath: claude, log: options.log }));

  const started = await app.jobs.start({ task: TASK, model: SELFTEST_MODEL, cwd: dirs.repo, isolation: 'worktree' });
  const paths = app.jobPaths(started.id);
  log.pass('job started', `${started.id} (${started.status}), isolation worktree, job folder ${paths.dir}`);

  let job = (opened.job = await app.jobs.wait(started.id, options.timeoutS ?? 120));
  if (!FINISHED.has(job.status)) job = opened.job = await app.jobs.cancel(started.id);
  await judgeSelfTestJob(job, { repo: dirs.repo, outside, sandboxed, transcript: paths.transcript, requests: paths.requests }, log);
  return log.ok;
}

/** The Claude Code the job will run, once it answered `--version`; undefined (a failed stage) otherwise. */
async function checkClaudeCode(options: SelfTestOptions, dirs: Dirs, log: StageLog): Promise<string | undefined> {
  const found = options.claudeExecutable ? { path: options.claudeExecutable, source: 'given' as const } : findClaudeCode({ env: options.env });
  if (found === undefined) {
    log.fail('claude code', NO_CLAUDE_CODE, ['npm ci in the localagents checkout installs the Agent SDK and its Claude Code']);
    return undefined;
  }
  try {
    log.pass('claude code', `${await claudeVersion(found.path, { PATH: options.env.PATH, HOME: dirs.home })} at ${found.path} (${SOURCE_WORDS[found.source]})`);
    return found.path;
  } catch (err) {
    log.fail('claude code', errorMessage(err), ['reinstall dependencies (npm ci); the binary ships in @anthropic-ai/claude-agent-sdk']);
    return undefined;
  }
}
