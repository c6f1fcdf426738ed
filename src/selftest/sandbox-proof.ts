/**
 * `localagents doctor`'s proof that the sandbox holds here: one tiny real job
 * (the Claude Code that jobs use, the scripted model on loopback, a throwaway
 * repository, isolation none) whose Bash writes once outside its tree and once
 * inside. It holds when the outside write was refused and the inside one was
 * not. Everything lives in one temporary folder, removed afterwards.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../app.js';
import { errorMessage } from '../errors.js';
import { FINISHED } from '../jobs/record/job-record.js';
import type { Logger } from '../log.js';
import { SELFTEST_MODEL, startScriptedBackend, type ScriptedBackend } from './scripted-backend.js';
import type { Stage } from './stages.js';
import { throwawayApp } from './throwaway-app.js';
import { makeThrowawayRepo } from './throwaway-repo.js';

export async function proveSandbox(env: Readonly<Record<string, string | undefined>>, claudePath: string, log: Logger): Promise<Stage> {
  const root = await realpath(await mkdtemp(join(env.TMPDIR || tmpdir(), 'localagents-sandbox-proof-')));
  const dirs = { home: join(root, 'home'), claude: join(root, 'claude-config'), state: join(root, 'state'), repo: join(root, 'repo') };
  const outside = join(dirs.home, 'escaped.txt');
  const inside = join(dirs.repo, 'inside.txt');
  let backend: ScriptedBackend | undefined;
  let app: App | undefined;
  try {
    await Promise.all([dirs.home, dirs.claude].map((d) => mkdir(d, { recursive: true })));
    await makeThrowawayRepo(dirs.repo);
    backend = await startScriptedBackend((turns) =>
      turns === 0 ? { toolUse: { name: 'Bash', input: { command: `echo escaped > ${outside}; echo inside > ${inside}`, description: 'One write outside the tree, one inside' } } } : { text: 'Tried.' },
    );
    app = throwawayApp({ root, dirs, env, backendUrl: backend.url, sandboxed: true, claudePath, log });
    const started = await app.jobs.start({ task: 'Write two files.', model: SELFTEST_MODEL, cwd: dirs.repo });
    let job = await app.jobs.wait(started.id, 60);
    if (!FINISHED.has(job.status)) job = await app.jobs.cancel(started.id);
    const escaped = await stat(outside).then(() => true, () => false);
    const wroteInside = (await readFile(inside, 'utf8').catch(() => '')) === 'inside\n';
    if (job.status !== 'succeeded') return { name: 'sandbox holds', ok: false, detail: `the proof job ${job.status}: ${job.error ?? ''}`, fixes: [] };
    if (escaped) return { name: 'sandbox holds', ok: false, detail: `a sandboxed Bash wrote ${outside}, outside its tree`, fixes: ['report this with localagents doctor --self-test --json: the sandbox did not hold'] };
    if (!wroteInside) return { name: 'sandbox holds', ok: false, detail: 'a sandboxed Bash could not write inside its own tree either', fixes: [] };
    return { name: 'sandbox holds', ok: true, detail: `a real sandboxed job's Bash could not write outside its tree, and could inside it (${job.sandbox?.refusals ?? 0} refusal)`, fixes: [] };
  } catch (err) {
    return { name: 'sandbox holds', ok: false, detail: `could not run the proof job: ${errorMessage(err)}`, fixes: [] };
  } finally {
    try {
      await app?.close();
    } finally {
      await backend?.close();
      await rm(root, { recursive: true, force: true });
    }
  }
}
