/**
 * The sandbox settings a job gets for the state directory (src/jobs/sandbox/session-sandbox.ts): Bash is denied
 * the whole state directory and re-opened only the job's own tree; the file tools' Read rules cover every state
 * entry but the way to that tree, whatever its name and whenever it appears. The rules are matched here as
 * Claude Code 2.1.332 was measured to match them (a rule covers the path and all below it, case-insensitively);
 * test/security/sandbox-escapes.e2e.test.ts proves the same on the real binary.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '../../src/jobs/sandbox/policy.js';
import { prepareSandbox, type PreparedSandbox } from '../../src/jobs/sandbox/session-sandbox.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'la-sandbox-settings-')));
const state = join(root, 'state');
mkdirSync(join(state, 'jobs', 'other'), { recursive: true });
writeFileSync(join(state, 'mcp-http-7777.token'), 'token\n');
const policy: SandboxPolicy = { enabled: true, strict: false, allowWrite: [], allowRead: [], allowedDomains: [], unsandboxedCommands: [] };
const disposers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(disposers.map((d) => d()));
});

async function settingsFor(tree: string): Promise<PreparedSandbox['settings']> {
  const prepared = await prepareSandbox({ policy, workDir: tree, tree, home: root, sessionEnv: {}, stateDir: state, configFiles: [], keyVariables: [], repoSettings: [] });
  disposers.push(() => prepared.dispose());
  return prepared.settings;
}

/** The path a `Read(//path)` rule names, as a regular expression: `*` within a name, `?` one character, `[…]` ranges. */
function ruleRegex(rule: string): RegExp {
  const path = /^Read\(\/(.*)\)$/.exec(rule)?.[1] ?? '';
  let re = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] ?? '';
    if (c === '*' && path[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = path.indexOf(']', i);
      re += path.slice(i, end + 1);
      i = end;
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i');
}

/** A rule covers a path when it names the path or a folder above it. */
function refused(rules: readonly string[], path: string): boolean {
  const regexes = rules.filter((r) => r.startsWith('Read(')).map(ruleRegex);
  const parts = path.split('/');
  return parts.some((_, i) => i > 0 && regexes.some((r) => r.test(parts.slice(0, i + 1).join('/'))));
}

describe('the state directory in the sandbox settings', () => {
  it('a worktree job: Bash is denied the state directory and allowed its tree; Read rules cover every other entry, made now or later', async () => {
    const tree = join(state, 'worktrees', 'la-repo-x1-3');
    mkdirSync(tree, { recursive: true });
    const { sandbox, permissions } = await settingsFor(tree);
    expect(sandbox?.filesystem?.denyRead).toContain(state);
    expect(sandbox?.filesystem?.denyRead?.filter((p) => p.startsWith(`${state}/`))).toEqual([]);
    expect(sandbox?.filesystem?.allowRead).toEqual([tree]);
    const deny = permissions?.deny ?? [];
    for (const open of [tree, join(tree, 'src', 'a.ts'), join(tree, '.git'), join(state, 'worktrees')]) expect(refused(deny, open), open).toBe(false);
    const others = [
      'jobs/other/job.json', 'mcp-http-7777.token', 'mcp-http-8888.token', 'usage-index/2026-12.jsonl', 'prices.json', '.hidden', 'WORKTREE', 'work',
      'worktrees-old/x', 'worktrees/la-repo-x1-4/secret.txt', 'worktrees/la-repo-x1-30/a', 'worktrees/la-repo-x1-/a', 'worktrees/la-repo', 'worktrees/other-1/a', 'worktrees/ünï/a',
    ];
    for (const rel of others) expect(refused(deny, join(state, rel)), rel).toBe(true);
  });

  it('a worktree of a repository whose name a pattern would read as special: its tree stays open, its siblings do not', async () => {
    const tree = join(state, 'worktrees', 'a[b]*-1');
    mkdirSync(tree, { recursive: true });
    const deny = (await settingsFor(tree)).permissions?.deny ?? [];
    expect(refused(deny, join(tree, 'x.ts'))).toBe(false);
    for (const rel of ['a[b]*-10/x', 'a[c]*-1/x', 'ab-1/x', 'a[b]/x']) expect(refused(deny, join(state, 'worktrees', rel)), rel).toBe(true);
  });

  it('a job whose tree is outside the state directory: the whole folder, in Bash and the file tools, the same rules for every job', async () => {
    const a = await settingsFor(mkdtempSync(join(tmpdir(), 'la-tree-')));
    const b = await settingsFor(mkdtempSync(join(tmpdir(), 'la-tree-')));
    expect(a.sandbox?.filesystem?.allowRead).toBeUndefined();
    expect(a.permissions?.deny?.filter((r) => r.includes(state))).toEqual([`Read(/${state})`, `Read(/${state}/**)`]);
    expect(b.permissions?.deny).toEqual(a.permissions?.deny);
    expect(b.sandbox?.filesystem?.denyRead).toEqual(a.sandbox?.filesystem?.denyRead);
  });
});
