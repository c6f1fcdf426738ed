/**
 * The verify command's parts with real processes: the check runner (tail, time limit, redaction, its process group),
 * the bubblewrap wrapping from a session's sandbox block, and the verifier's own bookkeeping.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { bwrapArgs } from '../../src/jobs/verify/check-sandbox.js';
import { verificationLine, type Verification } from '../../src/jobs/verify/record.js';
import { runCheck, TAIL_CHARS } from '../../src/jobs/verify/run-check.js';
import { createVerifier } from '../../src/jobs/verify/verifier.js';
import { learnSecret } from '../../src/secrets/redact.js';
import { processCommandLines, until } from '../helpers/processes.js';

const dir = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'la-verify-')));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' };
const sh = (command: string): string[] => ['/bin/sh', '-c', command];
const never = new AbortController().signal;

describe('runCheck', () => {
  it('keeps only the tail of a long output, stdout and stderr together, with known secrets redacted', async () => {
    learnSecret('verify-unit-secret-42');
    const a = await runCheck({ argv: sh('seq 1 100000; echo "key verify-unit-secret-42" >&2; exit 4'), cwd: dir(), env, timeoutMs: 20_000, signal: never });
    expect(a.exit_code).toBe(4);
    expect(a.output_tail.length).toBeLessThanOrEqual(TAIL_CHARS);
    expect(a.output_tail).toMatch(/99999\n100000\nkey \[redacted\]\n$/);
  });

  it('cuts a hanging check at its limit, with what it started', async () => {
    const cwd = dir();
    const a = await runCheck({ argv: sh('sleep 60 & echo $! > child.pid; echo started; wait'), cwd, env, timeoutMs: 1000, signal: never });
    // Cut, not waited for: the shell would have ended with `wait`'s 0 after the sleep.
    expect(a).toMatchObject({ exit_code: null, timed_out: true });
    expect(a.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(a.output_tail).toContain('cut at its time limit of 1 s');
    const pid = Number(readFileSync(join(cwd, 'child.pid'), 'utf8'));
    // Gone (a zombie has no command line: it waits only for a reaper).
    expect(await until(() => !processCommandLines().has(pid), 3000)).toBe(true);
  });

  it('does not wait for a background process that keeps the output open after the shell exits', async () => {
    const cwd = dir();
    // Waiting for this one would outlast the test's own limit many times over.
    const a = await runCheck({ argv: sh('(sleep 600) & echo $! > bg.pid; echo quick'), cwd, env, timeoutMs: 900_000, signal: never });
    expect(a.exit_code).toBe(0);
    expect(a.output_tail).toBe('quick\n');
    // Ended with the check: it leaves nothing running behind it.
    const pid = Number(readFileSync(join(cwd, 'bg.pid'), 'utf8'));
    expect(await until(() => !processCommandLines().has(pid), 3000)).toBe(true);
  });
});

describe('bwrapArgs', () => {
  it('writes only where the sandbox block lets Bash write, hides what it hides, and has no network', async () => {
    const tree = dir();
    const outside = dir();
    const secret = join(outside, 'secret');
    mkdirSync(secret);
    writeFileSync(join(secret, 'key'), 'hunter2');
    // A server on this machine's loopback, as the shim is: the check must not reach it.
    const server = createServer((socket) => socket.end('hello from outside\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const connect = `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(String(d))).on('error', (e) => console.log('net: ' + e.code))"`;
    const block = { enabled: true, filesystem: { allowWrite: [tree], denyWrite: [], denyRead: [secret] } };
    const argv = ['bwrap', ...bwrapArgs(block, tree), ...sh(`echo in > inside.txt; echo out > ${outside}/escape.txt; cat ${secret}/key; ${connect}`)];
    const a = await runCheck({ argv, cwd: tree, env, timeoutMs: 20_000, signal: never }).finally(() => server.close());
    expect(existsSync(join(tree, 'inside.txt'))).toBe(true);
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
    expect(a.output_tail).toContain('Read-only file system');
    expect(a.output_tail).not.toContain('hunter2');
    expect(a.output_tail).toContain('net: ECONNREFUSED');
    expect(a.output_tail).not.toContain('hello from outside');
  });
});

describe('bwrapArgs with a tree inside a hidden folder', () => {
  it('a worktree job\'s tree re-opened in the hidden state directory stays writable, its read-only parts stay so, the rest stays hidden', async () => {
    const state = dir();
    const tree = join(state, 'worktrees', 'repo-1');
    mkdirSync(join(tree, 'locked'), { recursive: true });
    writeFileSync(join(state, 'token'), 'hunter2');
    const block = { enabled: true, filesystem: { allowWrite: [tree], denyWrite: [join(tree, 'locked')], denyRead: [state], allowRead: [tree] } };
    const argv = ['bwrap', ...bwrapArgs(block, tree), ...sh(`echo in > inside.txt; echo no > locked/x; cat ${state}/token; ls ${state}`)];
    const a = await runCheck({ argv, cwd: tree, env, timeoutMs: 20_000, signal: never });
    expect(readFileSync(join(tree, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(join(tree, 'locked', 'x'))).toBe(false);
    expect(a.output_tail).not.toContain('hunter2');
    expect(a.output_tail).toMatch(/^worktrees$/m);
  });
});

function fakeRecord(turns: number, output: number): JobRecord {
  return { num_turns: turns, usage: { input_tokens: output * 10, output_tokens: output, cache_read_input_tokens: 0 } } as unknown as JobRecord;
}

describe('createVerifier', () => {
  it('when Claude Code never calls the hook, checks once after the session and says so', async () => {
    const updates: Verification[] = [];
    const v = createVerifier({
      plan: { command: 'echo fine', attempts: 3, timeoutS: 10 },
      workDir: dir(),
      sessionEnv: env,
      sandbox: undefined,
      signal: never,
      current: () => fakeRecord(1, 5),
      onAttempt: (verification) => updates.push(verification),
    });
    await v.afterSession(true);
    expect(v.failure()).toBeUndefined();
    expect(v.record()).toMatchObject({ passed: true, sandboxed: false, attempts: [{ exit_code: 0 }] });
    expect(v.record().notes?.join(' ')).toContain('never called the Stop hook');
    expect(updates).toHaveLength(1);
    expect(verificationLine(v.record())).toBe('verify `echo fine`: passed on attempt 1 of 3');
  });

  it('blocks the stop with the failure as its reason, counts what the fixing cost, and stops blocking when the attempts are used up', async () => {
    let turns = 2;
    const cwd = dir();
    const v = createVerifier({
      plan: { command: 'test -f fixed || { echo not fixed; exit 1; }', attempts: 2, timeoutS: 10 },
      workDir: cwd,
      sessionEnv: env,
      sandbox: undefined,
      signal: never,
      current: () => fakeRecord(turns, turns * 3),
      onAttempt: () => undefined,
    });
    const stop = v.hooks.Stop?.[0]?.hooks[0];
    if (stop === undefined) throw new Error('no Stop hook');
    const call = () => stop({ hook_event_name: 'Stop' } as never, undefined, { signal: never });
    const first = (await call()) as { decision?: string; reason?: string };
    expect(first.decision).toBe('block');
    expect(first.reason).toMatch(/check `test -f fixed .*` failed with exit status 1 \(check 1 of 2; 1 left\)[\s\S]*not fixed/);
    turns = 5;
    expect(await call()).toEqual({});
    expect(v.failure()).toMatch(/failed 2 times \(of 2 attempts; last: exit status 1\); last output: not fixed/);
    const r = v.record();
    expect(r.attempts[0]?.spent_after).toEqual({ turns: 3, input_tokens: 90, output_tokens: 9, cache_read_input_tokens: 0 });
    expect(r.spent_after_failures?.turns).toBe(3);
    expect(verificationLine(r)).toMatch(/^verify `test -f fixed .*`: failed 2 times of 2 \(fixing after failed checks took 3 turns, 99 tokens\); exit 1; last output: not fixed$/);
  });

  it('when Claude Code stops waiting for the hook, the session end waits for the running check, and its result decides', async () => {
    const v = createVerifier({
      plan: { command: 'sleep 0.5; echo late pass', attempts: 3, timeoutS: 10 },
      workDir: dir(),
      sessionEnv: env,
      sandbox: undefined,
      signal: never,
      current: () => fakeRecord(1, 1),
      onAttempt: () => undefined,
    });
    const stop = v.hooks.Stop?.[0]?.hooks[0];
    if (stop === undefined) throw new Error('no Stop hook');
    void stop({ hook_event_name: 'Stop' } as never, undefined, { signal: never }); // Claude Code gave up on it
    await v.afterSession(true);
    expect(v.failure()).toBeUndefined();
    expect(v.record()).toMatchObject({ passed: true, attempts: [{ exit_code: 0, output_tail: 'late pass\n' }] });
    expect(v.record().notes?.join(' ')).toContain('stopped waiting for the Stop hook');
  });
});
