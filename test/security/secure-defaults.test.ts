/**
 * Defaults a prompt-injected caller cannot lift, and state only its owner can
 * read: bypassPermissions needs models.yaml's consent, config-disallowed tools
 * stay off whatever run_agent asks, cwd must be a real directory (symlinks
 * resolved before use), and the state directory and its files are 0700/0600.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, errorOf, makeDirs, ok, startInProcess, type InProcess } from '../reliability/in-process.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

function initMessage(h: InProcess, id: string): { tools: string[]; cwd: string; permissionMode: string } {
  const first = readFileSync(join(h.dirs.state, 'jobs', id, 'events.jsonl'), 'utf8').split('\n')[0]!;
  return JSON.parse(first) as { tools: string[]; cwd: string; permissionMode: string };
}

describe('secure defaults', () => {
  let sim: Simulator;
  let h: InProcess;
  let yaml: string;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    yaml = endpointYaml(sim.url, { defaults: '  dump_requests: true' });
    const dirs = makeDirs();
    // A state directory someone else created world-readable: localagents narrows it.
    mkdirSync(dirs.state, { mode: 0o755 });
    chmodSync(dirs.state, 0o755);
    h = await startInProcess({ yaml, dirs });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('bypassPermissions is refused while models.yaml does not allow it', async () => {
    const result = await h.call('run_agent', { wait_s: 0, task: 'Do anything.', permission_mode: 'bypassPermissions' });
    expect(errorOf(result)).toMatchObject({
      code: 'bad_argument',
      argument: 'permission_mode',
      message: 'permission_mode "bypassPermissions" is refused: models.yaml does not set defaults.allow_bypass_permissions: true',
    });
    expect(readdirSync(h.dirs.state).includes('jobs') ? readdirSync(join(h.dirs.state, 'jobs')) : []).toEqual([]);
  });

  it('bypassPermissions is passed on once models.yaml allows it', async () => {
    // IS_SANDBOX: Claude Code refuses to skip permissions as root (these tests may run as root) unless told it is sandboxed.
    writeFileSync(h.dirs.config, endpointYaml(sim.url, { defaults: '  allow_bypass_permissions: true', extra: '      IS_SANDBOX: "1"' }));
    try {
      sim.setScript([{ text: 'Bypassing.' }]);
      const record = ok(await h.call('run_agent', { task: 'Say bypassing.', permission_mode: 'bypassPermissions', wait_s: 60 }));
      expect(record).toMatchObject({ status: 'succeeded', permission_mode: 'bypassPermissions' });
      expect(initMessage(h, String(record.id)).permissionMode).toBe('bypassPermissions');
    } finally {
      writeFileSync(h.dirs.config, yaml);
    }
  });

  it('allowed_tools cannot re-enable a tool the config disallows: Agent and Task stay off in the session', async () => {
    sim.setScript([
      { toolUse: { name: 'Agent', input: { description: 'helper', prompt: 'do it all', subagent_type: 'general-purpose' } } },
      { text: 'Could not delegate.' },
    ]);
    const record = ok(await h.call('run_agent', { task: 'Delegate to a subagent.', allowed_tools: ['Agent', 'Task', 'Read', 'Bash'], wait_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', allowed_tools: ['Read', 'Bash'], disallowed_tools: ['Agent', 'Task', 'WebSearch'] });
    const tools = initMessage(h, String(record.id)).tools;
    expect(tools).toContain('Read');
    expect(tools).not.toContain('Agent');
    expect(tools).not.toContain('Task');
    const transcript = readFileSync(join(h.dirs.state, 'jobs', String(record.id), 'transcript.txt'), 'utf8');
    expect(transcript).toMatch(/tool: Agent [^\n]*\n[^\n]*tool error: /);
  });

  it('cwd must exist and be a directory', async () => {
    const missing = join(h.dirs.root, 'no-such-dir');
    expect(errorOf(await h.call('run_agent', { wait_s: 0, task: 'x', cwd: missing }))).toMatchObject({ code: 'bad_argument', argument: 'cwd', message: `cwd "${missing}" does not exist` });
    const file = join(h.dirs.repo, 'README.md');
    expect(errorOf(await h.call('run_agent', { wait_s: 0, task: 'x', cwd: file }))).toMatchObject({ code: 'bad_argument', argument: 'cwd', message: `cwd "${file}" is not a directory` });
    const dangling = join(h.dirs.root, 'dangling');
    symlinkSync(join(h.dirs.root, 'gone'), dangling);
    expect(errorOf(await h.call('run_agent', { wait_s: 0, task: 'x', cwd: dangling }))).toMatchObject({ code: 'bad_argument', message: `cwd "${dangling}" does not exist` });
  });

  it('a symlinked cwd is resolved before use: the record and the session see the real path', async () => {
    const link = join(h.dirs.root, 'link-to-pkg');
    symlinkSync(join(h.dirs.repo, 'pkg'), link);
    sim.setScript([{ text: 'Looked.' }]);
    const record = ok(await h.call('run_agent', { task: 'Look.', cwd: link, wait_s: 60 }));
    expect(record).toMatchObject({ status: 'succeeded', cwd: join(h.dirs.repo, 'pkg'), work_dir: join(h.dirs.repo, 'pkg') });
    expect(initMessage(h, String(record.id)).cwd).toBe(join(h.dirs.repo, 'pkg'));
    const wt = ok(await h.call('run_agent', { task: 'Look.', cwd: link, isolation: 'worktree', wait_s: 60 }));
    expect(wt).toMatchObject({ status: 'succeeded', cwd: join(h.dirs.repo, 'pkg'), work_dir: join(h.dirs.state, 'worktrees', `${basename(h.dirs.repo)}-1`, 'pkg') });
  });

  it('the state directory and everything in it is owner-only: folders 0700, files 0600', async () => {
    ok(await h.call('register_model', { name: 'secret-model', notes: 'registered' }));
    expect(mode(h.dirs.state)).toBe('0700');
    const checked: string[] = [];
    const walk = (dir: string): void => {
      expect([dir, mode(dir)]).toEqual([dir, '0700']);
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else {
          checked.push(entry.name);
          expect([p, mode(p)]).toEqual([p, '0600']);
        }
      }
    };
    walk(join(h.dirs.state, 'jobs'));
    expect(new Set(checked)).toEqual(new Set(['caller.jsonl', 'job.json', 'task.txt', 'transcript.txt', 'events.jsonl', 'requests.jsonl', 'requests_full.jsonl']));
    expect(mode(join(h.dirs.state, 'worktrees'))).toBe('0700');
    expect(mode(join(h.dirs.root, 'models.local.yaml'))).toBe('0600');
  });
});
