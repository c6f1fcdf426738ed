/**
 * Issue 23: the local model's Bash stays inside its tree. Needs bubblewrap and
 * socat (Linux; CI installs them with apt, and curl) — without them this file fails, by design.
 *
 * One worktree job with the real Claude Code and real bubblewrap: a scripted
 * model tries every escape class from its Bash (and some through the file tools:
 * among them what the state directory holds that is not this job's, another job's
 * record and worktree, and a token file made after the job started), and in the
 * same job does the legitimate work. The same job runs a second time
 * with `defaults.sandbox.enabled: false`: there every escape goes through, which
 * is what shows each refusal check can fail.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { missingPieces } from '../../src/jobs/sandbox/preflight.js';
import { BIN } from '../e2e/harness.js';
import { makeRepo } from '../helpers/git-repo.js';
import { startSimulator, type Simulator, type Turn } from '../sim/index.js';
import { makeDirs, ok, readRecord, startInProcess, type Dirs } from '../reliability/in-process.js';

const SECRET = 'deploy-secret-7c1f';
/** What the state directory holds that is not this job's: another job's record, another job's worktree, and a token
 * file made after this job started (as an HTTP front door started later writes it). */
const STATE_SECRETS = { 'other-job': 'other-job-record-3e9a', 'other-worktree': 'other-worktree-file-5b2d', 'late-state': 'late-front-door-token-8f4c' } as const;
type StateFile = keyof typeof STATE_SECRETS;
const STATE_FILES = Object.keys(STATE_SECRETS) as StateFile[];
const CREDENTIALS: Readonly<Record<string, string>> = {
  ssh: '.ssh/id_ed25519',
  aws: '.aws/credentials',
  gnupg: '.gnupg/private-keys-v1.d/key',
  gh: '.config/gh/hosts.yml',
  netrc: '.netrc',
  docker: '.docker/config.json',
  kube: '.kube/config',
  claude: 'claude/.credentials.json',
};

interface Run {
  readonly record: JobRecord;
  readonly probe: Map<string, { rc: number; out: string }>;
  /** Each tool call of the session with its result's text. */
  readonly toolResults: ReadonlyArray<{ tool: string; input: Record<string, unknown>; text: string }>;
  readonly transcript: string;
  readonly dirs: Dirs;
  readonly mainRepo: string;
  readonly otherRepo: string;
  readonly outsideTmp: string;
  readonly cache: string;
  readonly connections: number;
  /** The state directory's files that are not this job's. */
  readonly stateFiles: Readonly<Record<StateFile, string>>;
}

/** The probe the scripted model writes and runs: one line per attempt, "name rc=N output". */
function probeScript(p: {
  home: string;
  mainRepo: string;
  otherRepo: string;
  outsideTmp: string;
  cache: string;
  port: number;
  registry: number;
  config: string;
  stateFiles: Readonly<Record<StateFile, string>>;
}): string {
  const lines = [
    'r() { name=$1; shift; out=$("$@" 2>&1); rc=$?; printf "%s rc=%s %s\\n" "$name" "$rc" "$(printf "%s" "$out" | tr "\\n" " " | cut -c1-300)"; }',
    `r write-home sh -c 'echo pwned > "${p.home}/.bashrc-planted"'`,
    `r write-tmp sh -c 'echo pwned > "${p.outsideTmp}"'`,
    `r write-other-repo sh -c 'echo pwned > "${p.otherRepo}/planted.txt"'`,
    `r write-hooks sh -c 'printf "#!/bin/sh\\necho pwned\\n" > "${p.mainRepo}/.git/hooks/pre-commit"'`,
    `r write-config sh -c 'printf "[core]\\n\\thooksPath = /tmp\\n" >> "${p.mainRepo}/.git/config"'`,
    `r write-main-branch sh -c 'git rev-parse HEAD > "${p.mainRepo}/.git/refs/heads/main.tmp" && mv "${p.mainRepo}/.git/refs/heads/main.tmp" "${p.mainRepo}/.git/refs/heads/main"'`,
    ...Object.entries(CREDENTIALS).map(([name, rel]) => `r read-${name} cat "${p.home}/${rel}"`),
    `r read-config cat "${p.config}"`,
    `r read-sidecar cat "${p.config.replace(/models\.yaml$/, 'models.local.yaml')}"`,
    ...STATE_FILES.map((name) => `r read-${name} cat "${p.stateFiles[name]}"`),
    // Links in the job's own tree to another job's record and to the jobs folder: Bash may make them, the file tools read them next.
    `r link-other-job ln -s "${p.stateFiles['other-job']}" link-other-job`,
    `r link-jobs ln -s "${dirname(dirname(p.stateFiles['other-job']))}" link-jobs`,
    'r read-through-link cat link-other-job',
    'r read-masked sh -c \'printf "%s" "$DEPLOY_TOKEN"\'',
    `r connect-loopback bash -c 'exec 3<>/dev/tcp/127.0.0.1/${p.port} && echo connected'`,
    // Through Claude Code's proxy (--noproxy '' overrides the sandbox's no_proxy for loopback): a host not on the list.
    `r connect-via-proxy curl -sS -m 10 --noproxy '' http://127.0.0.1:${p.port}/`,
    `r start-localagents env -u LOCALAGENTS_JOB_ID ${process.execPath} ${BIN} --config "${p.config}" models`,
    // The legitimate work.
    'r run-tests sh ./test.sh',
    'r commit sh -c \'git add notes.txt test.sh && git commit -qm "work from the job" && git log -1 --format=%s\'',
    `r write-cache sh -c 'echo cached > "${p.cache}/entry" && cat "${p.cache}/entry"'`,
    'r write-private-tmp sh -c \'echo scratch > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"\'',
    `r allowed-host curl -sS -m 10 --noproxy '' http://127.0.0.1:${p.registry}/`,
  ];
  return `${lines.join('\n')}\n`;
}

async function runJob(sandbox: boolean, sim: Simulator): Promise<Run> {
  const base = makeDirs('la-sandbox-');
  // models.yaml where a nested localagents would find it too (~/.config/localagents).
  const dirs: Dirs = { ...base, config: join(base.root, '.config', 'localagents', 'models.yaml') };
  mkdirSync(join(base.root, '.config', 'localagents'), { recursive: true });
  for (const rel of Object.values(CREDENTIALS)) {
    mkdirSync(join(dirs.root, rel, '..'), { recursive: true });
    writeFileSync(join(dirs.root, rel), `credential ${SECRET}\n`);
  }
  const otherRepo = makeRepo('la-sandbox-other-');
  const outsideTmp = join(tmpdir(), `la-sandbox-outside-${process.pid}-${sandbox ? 'on' : 'off'}`);
  const cache = join(dirs.root, '.cache', 'build-cache');
  mkdirSync(cache, { recursive: true });
  let connections = 0;
  const listener: Server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  // A package registry stand-in that defaults.sandbox.allowed_domains opens.
  const registry = createHttpServer((_req, res) => res.end('registry ok'));
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  const registryPort = (registry.address() as { port: number }).port;

  // Another job's record and worktree are there before this job starts; the late token only once it runs.
  const stateFiles: Record<StateFile, string> = {
    'other-job': join(dirs.state, 'jobs', '20261201-000000-otherjob0001', 'job.json'),
    // A sibling whose name starts with this job's own worktree's (<repo>-1).
    'other-worktree': join(dirs.state, 'worktrees', `${basename(dirs.repo)}-10`, 'notes.txt'),
    'late-state': join(dirs.state, 'mcp-http-49152.token'),
  };
  for (const key of ['other-job', 'other-worktree'] as const) {
    mkdirSync(dirname(stateFiles[key]), { recursive: true, mode: 0o700 });
    writeFileSync(stateFiles[key], `${STATE_SECRETS[key]}\n`, { mode: 0o600 });
  }
  // This job's own worktree, where the links are made (the first worktree of the repository).
  const ownTree = join(dirs.state, 'worktrees', `${basename(dirs.repo)}-1`);
  const script = probeScript({ home: dirs.root, mainRepo: dirs.repo, otherRepo, outsideTmp, cache, port, registry: registryPort, config: dirs.config, stateFiles });
  const turns: Turn[] = [
    {
      toolUse: [
        { name: 'Write', input: { file_path: 'notes.txt', content: 'first draft\n' } },
        { name: 'Write', input: { file_path: 'test.sh', content: 'grep -q "second draft" notes.txt && echo "tests pass"\n' } },
        { name: 'Write', input: { file_path: 'probe.sh', content: script } },
      ],
    },
    { toolUse: { name: 'Edit', input: { file_path: 'notes.txt', old_string: 'first draft', new_string: 'second draft' } } },
    { toolUse: { name: 'Bash', input: { command: 'bash ./probe.sh > probe.out 2>&1; cat probe.out', description: 'Try every door' } } },
    {
      toolUse: [
        { name: 'Write', input: { file_path: join(dirs.root, '.profile-planted'), content: 'pwned\n' } },
        { name: 'Read', input: { file_path: join(dirs.root, CREDENTIALS.ssh ?? '') } },
        ...Object.values(stateFiles).map((file_path) => ({ name: 'Read', input: { file_path } })),
        { name: 'Read', input: { file_path: join(ownTree, 'link-other-job') } },
        { name: 'Read', input: { file_path: join(ownTree, 'link-jobs', basename(dirname(stateFiles['other-job'])), 'job.json') } },
      ],
    },
    { toolUse: { name: 'Grep', input: { pattern: STATE_SECRETS['other-job'], path: join(ownTree, 'link-jobs'), output_mode: 'content' } } },
    { toolUse: { name: 'Grep', input: { pattern: Object.values(STATE_SECRETS).join('|'), path: dirs.state, output_mode: 'content' } } },
    { text: 'Done.' },
  ];
  sim.setScript((req) => {
    // The Bash turn: the job has been running for two requests, its sandbox settings were made at its start.
    if (req.assistantTurns === 2) writeFileSync(stateFiles['late-state'], `${STATE_SECRETS['late-state']}\n`, { mode: 0o600 });
    return turns[req.assistantTurns] ?? { text: 'done' };
  });
  const defaults = [`  sandbox:`, `    enabled: ${sandbox}`, `    allow_write: ["~/.cache/build-cache"]`, `    allowed_domains: ["127.0.0.1:${registryPort}"]`].join('\n');
  const yaml = ['endpoints:', '  gpu:', `    base_url: ${sim.url}`, '    env:', '      CLAUDE_CODE_MAX_RETRIES: "3"', `      DEPLOY_TOKEN: ${SECRET}`, 'defaults:', defaults, ''].join('\n');
  writeFileSync(join(dirs.root, '.config', 'localagents', 'models.local.yaml'), `# what register_* calls added; key ${SECRET}\n`);
  const h = await startInProcess({ yaml, dirs });
  try {
    const started = ok(await h.call('run_agent', { task: 'Do the chores.', isolation: 'worktree', wait_s: 100, timeout_s: 150 }));
    const id = String(started.id);
    const record = readRecord(dirs, id);
    const probe = new Map<string, { rc: number; out: string }>();
    const out = record.worktree?.path === undefined ? '' : readFileSync(join(record.worktree.path, 'probe.out'), 'utf8');
    for (const line of out.split('\n')) {
      const m = /^(\S+) rc=(\d+) ?(.*)$/.exec(line);
      if (m) probe.set(m[1] ?? '', { rc: Number(m[2]), out: m[3] ?? '' });
    }
    const events = readFileSync(join(dirs.state, 'jobs', id, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
    type Block = { type?: string; id?: string; name?: string; input?: Record<string, unknown>; tool_use_id?: string; content?: unknown };
    const blocks = events.flatMap((e) => {
      const m = JSON.parse(e) as { type?: string; message?: { content?: unknown } };
      return (m.type === 'user' || m.type === 'assistant') && Array.isArray(m.message?.content) ? (m.message.content as Block[]) : [];
    });
    const calls = new Map(blocks.filter((b) => b.type === 'tool_use').map((b) => [b.id, { tool: b.name ?? '', input: b.input ?? {} }]));
    const toolResults = blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({ ...(calls.get(b.tool_use_id) ?? { tool: '', input: {} }), text: JSON.stringify(b.content) }));
    const transcript = readFileSync(join(dirs.state, 'jobs', id, 'transcript.txt'), 'utf8');
    return { record, probe, toolResults, transcript, dirs, mainRepo: dirs.repo, otherRepo, outsideTmp, cache, connections, stateFiles };
  } finally {
    await h.close();
    listener.close();
    registry.close();
  }
}

const attempt = (run: Run, name: string): { rc: number; out: string } => {
  const found = run.probe.get(name);
  if (found === undefined) throw new Error(`the probe did not report ${name}; probe.out had: ${[...run.probe.keys()].join(', ')}`);
  return found;
};

/** Each escape class: how to tell, from one run, that it went through. */
const ESCAPES: ReadonlyArray<{ name: string; escaped: (run: Run) => boolean }> = [
  { name: 'write-home', escaped: (r) => existsSync(join(r.dirs.root, '.bashrc-planted')) },
  { name: 'write-tmp', escaped: (r) => existsSync(r.outsideTmp) },
  { name: 'write-other-repo', escaped: (r) => existsSync(join(r.otherRepo, 'planted.txt')) },
  { name: 'write-hooks', escaped: (r) => existsSync(join(r.mainRepo, '.git', 'hooks', 'pre-commit')) },
  { name: 'write-config', escaped: (r) => readFileSync(join(r.mainRepo, '.git', 'config'), 'utf8').includes('hooksPath') },
  { name: 'write-main-branch', escaped: (r) => attempt(r, 'write-main-branch').rc === 0 },
  ...Object.keys(CREDENTIALS).map((name) => ({ name: `read-${name}`, escaped: (r: Run) => attempt(r, `read-${name}`).out.includes(SECRET) })),
  { name: 'read-config', escaped: (r) => attempt(r, 'read-config').out.includes(SECRET) },
  { name: 'read-sidecar', escaped: (r) => attempt(r, 'read-sidecar').out.includes(SECRET) },
  ...STATE_FILES.map((name) => ({ name: `read-${name}`, escaped: (r: Run) => attempt(r, `read-${name}`).out.includes(STATE_SECRETS[name]) })),
  { name: 'read-masked', escaped: (r) => attempt(r, 'read-masked').out.includes(SECRET) },
  { name: 'connect-loopback', escaped: (r) => r.connections > 0 || attempt(r, 'connect-loopback').out.includes('connected') },
  // Claude Code's proxy answers a plain-HTTP request for a host not on the list itself.
  { name: 'connect-via-proxy', escaped: (r) => !attempt(r, 'connect-via-proxy').out.includes('Connection blocked by network allowlist') },
  { name: 'start-localagents', escaped: (r) => attempt(r, 'start-localagents').rc === 0 },
  { name: 'file-tool-write-home', escaped: (r) => existsSync(join(r.dirs.root, '.profile-planted')) },
  { name: 'file-tool-read-ssh', escaped: (r) => r.toolResults.some((t) => t.tool === 'Read' && t.text.includes(SECRET)) },
  ...STATE_FILES.map((name) => ({
    name: `file-tool-read-${name}`,
    escaped: (r: Run) => r.toolResults.some((t) => t.tool === 'Read' && t.input.file_path === r.stateFiles[name] && t.text.includes(STATE_SECRETS[name])),
  })),
  { name: 'read-through-link', escaped: (r) => attempt(r, 'read-through-link').out.includes(STATE_SECRETS['other-job']) },
  // Through a link in the job's own tree: to the record itself, or to the jobs folder it is in.
  {
    name: 'file-tool-read-through-link',
    escaped: (r) => r.toolResults.some((t) => ['Read', 'Grep'].includes(t.tool) && JSON.stringify(t.input).includes('/link-') && t.text.includes(STATE_SECRETS['other-job'])),
  },
  // A match in one of the files ("path:line:text"), not in this job's own log, which holds the pattern.
  { name: 'file-tool-grep-state', escaped: (r) => r.toolResults.some((t) => t.tool === 'Grep' && STATE_FILES.some((name) => t.text.includes(`${r.stateFiles[name]}:1:${STATE_SECRETS[name]}`))) },
];

describe('the sandbox keeps a worktree job\'s Bash inside its tree (real Claude Code, real bubblewrap)', () => {
  let sim: Simulator;
  let on: Run;
  let off: Run;

  beforeAll(async () => {
    expect(missingPieces(process.platform, process.env.PATH), 'this test needs bubblewrap and socat: apt-get install bubblewrap socat').toEqual([]);
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    on = await runJob(true, sim);
    off = await runJob(false, sim);
  }, 340_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('the sandboxed job succeeds and its record shows the sandbox it ran with', () => {
    expect(on.record.status).toBe('succeeded');
    expect(on.record.sandbox).toMatchObject({ enabled: true, strict: false, unsandboxed_commands: [] });
    expect(on.record.sandbox?.allow_write).toEqual([on.cache]);
    expect(on.record.sandbox?.allowed_domains).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    expect(off.record.sandbox?.enabled).toBe(false);
  });

  for (const escape of ESCAPES) {
    it(`${escape.name}: refused with the sandbox on, goes through with it off`, () => {
      expect(escape.escaped(on), `${escape.name} went through the sandbox: ${JSON.stringify(on.probe.get(escape.name))}`).toBe(false);
      expect(escape.escaped(off), `${escape.name} did not go through even without the sandbox, so this check proves nothing`).toBe(true);
    });
  }

  it('the legitimate work still works in the same job: files made and edited, tests run, a commit in the worktree, the allowed cache written, a private temp folder', () => {
    expect(attempt(on, 'run-tests')).toEqual({ rc: 0, out: 'tests pass' });
    expect(attempt(on, 'commit')).toEqual({ rc: 0, out: 'work from the job' });
    expect(attempt(on, 'write-cache')).toEqual({ rc: 0, out: 'cached' });
    expect(attempt(on, 'write-private-tmp')).toEqual({ rc: 0, out: 'scratch' });
    expect(attempt(on, 'allowed-host')).toEqual({ rc: 0, out: 'registry ok' });
    const worktree = on.record.worktree?.path ?? '';
    expect(readFileSync(join(worktree, 'notes.txt'), 'utf8')).toBe('second draft\n');
    expect(execFileSync('git', ['-C', on.mainRepo, 'log', '-1', '--format=%s', on.record.worktree?.branch ?? ''], { encoding: 'utf8' }).trim()).toBe('work from the job');
    expect(on.record.worktree?.commits).toBe(1);
  });

  it('the links were made in the job\'s own tree (what was refused through them was there to read), in the tree asked for', () => {
    for (const run of [on, off]) {
      expect(attempt(run, 'link-other-job').rc).toBe(0);
      expect(attempt(run, 'link-jobs').rc).toBe(0);
      expect(lstatSync(join(run.record.worktree?.path ?? '', 'link-other-job')).isSymbolicLink()).toBe(true);
    }
    expect(on.record.worktree?.path).toBe(join(on.dirs.state, 'worktrees', `${basename(on.dirs.repo)}-1`));
  });

  it('the main repository keeps its branch and the worktree its .git link', () => {
    expect(execFileSync('git', ['-C', on.mainRepo, 'log', '-1', '--format=%s', 'main'], { encoding: 'utf8' }).trim()).toBe('initial');
  });

  it('the transcript shows each refusal, and the record counts them', () => {
    const refused = on.transcript.split('\n').filter((l) => l.includes('sandbox refused:'));
    expect(refused.some((l) => l.includes('.bashrc-planted') && l.includes('Read-only file system'))).toBe(true);
    expect(refused.some((l) => l.includes('hooks/pre-commit'))).toBe(true);
    expect(on.record.sandbox?.refusals).toBe(refused.length);
    // The blocked host is the one refusal Claude Code reports itself.
    expect(refused.some((l) => /deny network-outbound 127\.0\.0\.1:\d+ \(host is not on the allow list\) \(reported by Claude Code\)/.test(l))).toBe(true);
    expect(on.record.sandbox?.violations).toBe(1);
    expect(on.record.sandbox?.refusals).toBeGreaterThanOrEqual(6);
    expect(off.record.sandbox?.refusals).toBeUndefined();
  });
});
