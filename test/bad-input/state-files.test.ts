/**
 * Issue 29, finding 2 and its class: every file and folder localagents keeps
 * in its state and config directories, in each wrong shape (a file for a
 * folder, a folder for a file, garbage JSON, a symbolic link, a FIFO,
 * unreadable, owned by another user). The real CLI and the built MCP server
 * (through the official SDK client) each answer with the path, what was
 * expected and what to do; never "internal", a raw errno or a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/record/job-store.js';
import { runCli, type CliResult } from '../cli/cli-process.js';
import { makeRecord, seedJob } from '../dashboard/fixtures.js';
import { connect, makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';

interface World {
  readonly dirs: E2EDirs;
  /** A finished job with a record, a transcript and a request log. */
  readonly done: string;
  /** A running job whose owner (this test process) is alive: cancel must ask through the inbox. */
  readonly running: string;
}

async function makeWorld(): Promise<World> {
  const dirs = makeDirs();
  writeConfig(dirs, 'endpoints:\n  gpu:\n    base_url: http://127.0.0.1:9\n');
  const store = createJobStore(dirs.state);
  const done = (await seedJob(store, makeRecord({ created: new Date(Date.now() - 60_000) }))).id;
  const running = (await seedJob(store, makeRecord({ status: 'running', finished_at: undefined, result: undefined, owner_pid: process.pid }))).id;
  return { dirs, done, running };
}

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

const fifo = (path: string): void => {
  rmSync(path, { recursive: true, force: true });
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
};
const folder = (path: string): void => {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
};
const file = (path: string, text = 'not what localagents wrote\n'): void => {
  rmSync(path, { recursive: true, force: true });
  writeFileSync(path, text);
};
const link = (path: string, target: string): void => {
  rmSync(path, { recursive: true, force: true });
  symlinkSync(target, path);
};

/**
 * The CLI where uid 65534 can read it: the checkout may sit under a folder other
 * users cannot enter (CI's mktemp folder and root's home are 0700), so the test
 * runs the one-file bundle (plugin/localagents.mjs, kept equal to src/ by the
 * plugin tests) from a copy in the opened-up test folder.
 */
function otherUserCopyOfCli(openDir: string): string {
  const app = join(openDir, 'app');
  mkdirSync(join(app, 'plugin'), { recursive: true, mode: 0o755 });
  copyFileSync(join(REPO_ROOT, 'package.json'), join(app, 'package.json'));
  copyFileSync(join(REPO_ROOT, 'plugin', 'localagents.mjs'), join(app, 'plugin', 'localagents.mjs'));
  for (const p of [app, join(app, 'plugin')]) chmodSync(p, 0o755);
  return join(app, 'plugin', 'localagents.mjs');
}

/** A raw errno message or an internal error: what a person or the calling model cannot act on. */
const INTERNALS = /internal|\n\s+at |\bE[A-Z]{3,}: |URIError/;

function expectWordsFromCli(result: CliResult, says: string): void {
  expect({ code: result.code, says: result.stderr.includes(says) ? says : result.stderr }).toEqual({ code: 1, says });
  expect(result.stderr.split('\n')[1]).toMatch(/\w/); // the line after the error says what to do
  expect(result.stderr).not.toMatch(INTERNALS);
}

function expectWordsFromMcp(result: CallToolResult, says: string): void {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  expect({ isError: result.isError, says: text.includes(says) ? says : text }).toEqual({ isError: true, says });
  expect(text).toMatch(/^(bad_state|state_unwritable|bad_config): [^\n]+\nhint: \w/);
  expect(text).not.toMatch(INTERNALS);
}

describe('a state directory in the wrong shape gets words, never internals', { timeout: 600_000 }, () => {
  const worlds: World[] = [];
  afterAll(() => {
    for (const w of worlds) rmSync(w.dirs.root, { recursive: true, force: true });
  });
  const world = async (): Promise<World> => {
    const w = await makeWorld();
    worlds.push(w);
    return w;
  };

  it('finding 2: <state>/coord/cancel as a regular file: `localagents cancel` and cancel_job name it, say a folder belongs there and what to do', async () => {
    const w = await world();
    const inbox = join(w.dirs.state, 'coord', 'cancel');
    mkdirSync(join(w.dirs.state, 'coord'), { recursive: true });
    file(inbox);
    const says = `${inbox} is a regular file, but localagents expects a folder there`;
    const cli = await runCli(['--config', w.dirs.config, 'cancel', w.running], { cwd: w.dirs.repo, env: serverEnv(w.dirs) });
    expectWordsFromCli(cli, says);
    expect(cli.stderr).toContain(`Move it aside (mv '${inbox}' '${inbox}.bak')`);
    const mcp = await connect(w.dirs);
    try {
      expectWordsFromMcp(await mcp.call('cancel_job', { job_id: w.running }), says);
    } finally {
      await mcp.close();
    }
  });

  interface Case {
    readonly name: string;
    readonly breakIt: (w: World) => void;
    readonly cli: (w: World) => string[];
    readonly mcp: (w: World) => [string, Record<string, unknown>];
    readonly says: (w: World) => string;
  }
  const jobs = (w: World): string => join(w.dirs.state, 'jobs');
  const jobDir = (w: World, id = w.done): string => join(jobs(w), id);
  const coord = (w: World): string => join(w.dirs.state, 'coord');
  const show = (w: World): string[] => ['show', w.done];
  const status = (w: World): [string, Record<string, unknown>] => ['job_status', { job_id: w.done }];
  const log = (w: World): string[] => ['log', w.done];
  const jobLog = (w: World): [string, Record<string, unknown>] => ['job_log', { job_id: w.done }];
  const cancel = (w: World): string[] => ['cancel', w.running];
  const cancelJob = (w: World): [string, Record<string, unknown>] => ['cancel_job', { job_id: w.running }];

  const cases: Case[] = [
    { name: 'job.json garbage', breakIt: (w) => file(join(jobDir(w), 'job.json'), '{"id": '), cli: show, mcp: status, says: (w) => `job record ${join(jobDir(w), 'job.json')} is damaged` },
    { name: 'job.json valid JSON, not a record', breakIt: (w) => file(join(jobDir(w), 'job.json'), '{}\n'), cli: show, mcp: status, says: (w) => `job record ${join(jobDir(w), 'job.json')} is damaged` },
    { name: 'job.json a folder', breakIt: (w) => folder(join(jobDir(w), 'job.json')), cli: show, mcp: status, says: (w) => `${join(jobDir(w), 'job.json')} is a folder, but localagents expects a regular file there` },
    { name: 'job.json a FIFO', breakIt: (w) => fifo(join(jobDir(w), 'job.json')), cli: show, mcp: status, says: (w) => `${join(jobDir(w), 'job.json')} is a FIFO (named pipe), but localagents expects a regular file there` },
    { name: 'job.json a symbolic link', breakIt: (w) => link(join(jobDir(w), 'job.json'), '/etc/hostname'), cli: show, mcp: status, says: (w) => `${join(jobDir(w), 'job.json')} is a symbolic link to /etc/hostname, but localagents expects a regular file there` },
    { name: 'job folder a regular file', breakIt: (w) => file(jobDir(w)), cli: show, mcp: status, says: (w) => `${jobDir(w)} is a regular file, but localagents expects a folder there` },
    { name: 'jobs/ a regular file', breakIt: (w) => file(jobs(w)), cli: show, mcp: status, says: (w) => `${jobs(w)} is a regular file, but localagents expects a folder there` },
    { name: 'jobs/ a symbolic link to a file', breakIt: (w) => link(jobs(w), '/etc/hostname'), cli: show, mcp: status, says: (w) => `${jobs(w)} is a symbolic link to /etc/hostname, but localagents expects a folder there` },
    { name: 'state directory a regular file', breakIt: (w) => file(w.dirs.state), cli: show, mcp: status, says: (w) => `${w.dirs.state} is a regular file, but localagents expects a folder there` },
    { name: 'transcript a folder', breakIt: (w) => folder(join(jobDir(w), 'transcript.txt')), cli: log, mcp: jobLog, says: (w) => `${join(jobDir(w), 'transcript.txt')} is a folder, but localagents expects a regular file there` },
    { name: 'transcript a FIFO', breakIt: (w) => fifo(join(jobDir(w), 'transcript.txt')), cli: log, mcp: jobLog, says: (w) => `${join(jobDir(w), 'transcript.txt')} is a FIFO (named pipe)` },
    { name: 'transcript a symbolic link', breakIt: (w) => link(join(jobDir(w), 'transcript.txt'), '/etc/passwd'), cli: log, mcp: jobLog, says: (w) => `${join(jobDir(w), 'transcript.txt')} is a symbolic link to /etc/passwd` },
    { name: 'coord/ a regular file', breakIt: (w) => file(coord(w)), cli: cancel, mcp: cancelJob, says: (w) => `${coord(w)} is a regular file, but localagents expects a folder there` },
    { name: 'coord/cancel a FIFO', breakIt: (w) => (folder(coord(w)), fifo(join(coord(w), 'cancel'))), cli: cancel, mcp: cancelJob, says: (w) => `${join(coord(w), 'cancel')} is a FIFO (named pipe), but localagents expects a folder there` },
    { name: 'coord/cancel a link to a file', breakIt: (w) => (folder(coord(w)), link(join(coord(w), 'cancel'), '/etc/hostname')), cli: cancel, mcp: cancelJob, says: (w) => `${join(coord(w), 'cancel')} is a symbolic link to /etc/hostname, but localagents expects a folder there` },
    { name: 'running job.json garbage (cancel)', breakIt: (w) => file(join(jobDir(w, w.running), 'job.json'), 'garbage'), cli: cancel, mcp: cancelJob, says: (w) => `job record ${join(jobDir(w, w.running), 'job.json')} is damaged` },
    { name: 'models.local.yaml a folder', breakIt: (w) => folder(join(w.dirs.root, 'models.local.yaml')), cli: () => ['models'], mcp: () => ['list_models', {}], says: (w) => `${join(w.dirs.root, 'models.local.yaml')} is a folder, but localagents expects a regular file there` },
    { name: 'job.json empty', breakIt: (w) => file(join(jobDir(w), 'job.json'), ''), cli: show, mcp: status, says: (w) => `job record ${join(jobDir(w), 'job.json')} is damaged` },
    { name: 'models.local.yaml a link to a folder', breakIt: (w) => link(join(w.dirs.root, 'models.local.yaml'), '/tmp'), cli: () => ['models'], mcp: () => ['list_models', {}], says: (w) => `${join(w.dirs.root, 'models.local.yaml')} is a symbolic link to /tmp, but localagents expects a regular file there` },
    { name: 'models.local.yaml a FIFO', breakIt: (w) => fifo(join(w.dirs.root, 'models.local.yaml')), cli: () => ['models'], mcp: () => ['list_models', {}], says: (w) => `${join(w.dirs.root, 'models.local.yaml')} is a FIFO (named pipe)` },
  ];

  it(`answers each of ${cases.length} wrong shapes, from the CLI and from the MCP server, with the path, what belongs there and what to do`, async () => {
    for (const c of cases) {
      const w = await world();
      c.breakIt(w);
      const says = c.says(w);
      const cli = await runCli(['--config', w.dirs.config, ...c.cli(w)], { cwd: w.dirs.repo, env: serverEnv(w.dirs), timeoutMs: 30_000 });
      expect({ case: c.name, cli: cli.stderr.includes(says) ? 'says it' : cli.stderr || cli.stdout }).toEqual({ case: c.name, cli: 'says it' });
      expectWordsFromCli(cli, says);
      const mcp = await connect(w.dirs);
      try {
        const [tool, args] = c.mcp(w);
        const result = await mcp.call(tool, args);
        expect({ case: c.name, isError: result.isError }).toEqual({ case: c.name, isError: true });
        expectWordsFromMcp(result, says);
      } finally {
        await mcp.close();
      }
    }
  });

  it('unreadable or owned by another user: run as uid 65534 over a root-owned state directory, the CLI names the owner, the mode and the chown to run', async () => {
    const w = await world();
    // The tree the other user needs to read (config, repo) is opened up; the state stays root's, 0700.
    for (const p of [w.dirs.root, w.dirs.repo]) chmodSync(p, 0o755);
    chmodSync(w.dirs.config, 0o644);
    chmodSync(w.dirs.state, 0o755);
    chmodSync(jobs(w), 0o700);
    const env = { ...serverEnv(w.dirs), HOME: '/tmp' };
    const bin = otherUserCopyOfCli(w.dirs.root);
    const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin, '--config', w.dirs.config, 'jobs', '--all'], { cwd: w.dirs.repo, env, encoding: 'utf8', timeout: 60_000 });
    expectWordsFromCli({ code: run.status, stdout: run.stdout, stderr: run.stderr }, `localagents (running as uid 65534) may not scandir ${jobs(w)}, which is owned by uid 0 with mode 0700`);
    expect(run.stderr).toContain(`chown -R 65534 '${jobs(w)}'`);

    chmodSync(jobs(w), 0o755);
    chmodSync(jobDir(w), 0o755);
    chmodSync(join(jobDir(w), 'job.json'), 0o600);
    const show = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin, '--config', w.dirs.config, 'show', w.done], { cwd: w.dirs.repo, env, encoding: 'utf8', timeout: 60_000 });
    expectWordsFromCli({ code: show.status, stdout: show.stdout, stderr: show.stderr }, `may not open ${join(jobDir(w), 'job.json')}, which is owned by uid 0 with mode 0600`);
  });
});
