/**
 * Issue 23, "never silently unsandboxed": where the sandbox cannot run, a job
 * fails before its session starts, and doctor fails, each with what is missing
 * and how to install it or turn the sandbox off. A caller can ask only for a
 * stricter sandbox. The machine is one without bubblewrap as every process sees
 * it: a PATH that lacks bwrap (test/helpers/path-without.ts).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { pathWithout } from '../helpers/path-without.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { baseEnv, endpointYaml, errorOf, makeDirs, ok, readRecord, startInProcess } from '../reliability/in-process.js';

const INSTALL = 'install bubblewrap and socat: sudo apt-get install bubblewrap socat';
const TURN_OFF = 'turn the sandbox off in models.yaml: defaults: { sandbox: { enabled: false } }';

describe('a machine where the sandbox cannot run', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let noBwrap: string;
  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', script: [{ text: 'Done.' }] });
    noBwrap = pathWithout(['bwrap']);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('a job fails at once, before Claude Code starts, with the install message; nothing reaches the model', async () => {
    const h = await startInProcess({ yaml: endpointYaml(sim.url), env: { PATH: noBwrap } });
    try {
      const messages = (): number => sim.requests.filter((r) => r.path.startsWith('/v1/messages')).length;
      const before = messages();
      const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 60 }));
      expect(record.status).toBe('failed');
      expect(record.error_code).toBe('sandbox_unavailable');
      expect(record.error).toBe(
        `the sandbox cannot run: bubblewrap (bwrap) is missing (not on PATH) — ${INSTALL} (Debian, Ubuntu), sudo dnf install bubblewrap socat (Fedora), sudo pacman -S bubblewrap socat (Arch); ` +
          `if this machine is itself the boundary (a throwaway VM or container), ${TURN_OFF}`,
      );
      expect(record.claude_pid).toBeUndefined();
      expect(messages()).toBe(before);
      expect(readRecord(h.dirs, String(record.id)).sandbox?.enabled).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('doctor fails its sandbox check with the same fixes; exit 1', async () => {
    const dirs = makeDirs('la-sbx-doctor-');
    writeFileSync(dirs.config, endpointYaml(sim.url));
    const result = await runCli(['--config', dirs.config, 'doctor'], { cwd: dirs.repo, env: baseEnv(dirs, { PATH: noBwrap }) });
    expect(result.stdout).toContain('FAIL sandbox: the sandbox cannot run: bubblewrap (bwrap) is missing (not on PATH); delegated jobs refuse to start');
    expect(result.stdout).toContain(`fix: ${INSTALL}`);
    expect(result.stdout).toContain(TURN_OFF);
    expect(result.code).toBe(1);
  });

  it('with the sandbox turned off in models.yaml the same machine runs the job, and doctor and the record say it is off', async () => {
    const yaml = endpointYaml(sim.url, { defaults: '  sandbox:\n    enabled: false' });
    const h = await startInProcess({ yaml, env: { PATH: noBwrap } });
    try {
      const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 60 }));
      expect(record.status).toBe('succeeded');
      expect(record.sandbox).toMatchObject({ enabled: false });
      const result = await runCli(['--config', h.dirs.config, 'doctor'], { cwd: h.dirs.repo, env: baseEnv(h.dirs, { PATH: noBwrap }) });
      expect(result.stdout).toContain('ok   sandbox: off (defaults.sandbox.enabled: false): Bash runs as you, with your files and network');
    } finally {
      await h.close();
    }
  });

  it('a bubblewrap that cannot make a sandbox here (a container without user namespaces): the job fails before it starts, saying what bwrap said', async () => {
    // A bwrap first on PATH that fails as the real one does where unprivileged user namespaces are off.
    const dirs = makeDirs('la-sbx-userns-');
    const bin = join(dirs.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n');
    chmodSync(join(bin, 'bwrap'), 0o755);
    const h = await startInProcess({ yaml: endpointYaml(sim.url), dirs, env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
    try {
      const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 60 }));
      expect(record.status).toBe('failed');
      expect(record.error_code).toBe('sandbox_unavailable');
      expect(record.error).toContain(`the sandbox cannot run: bubblewrap cannot create one here (${bin}/bwrap: bwrap: No permissions to create new namespace`);
      expect(record.error).toContain('allow unprivileged user namespaces');
      expect(record.error).toContain(TURN_OFF);
      expect(record.claude_pid).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it('a Claude Code too old for sandbox.failIfUnavailable: the job fails before it starts and names the version it needs', async () => {
    const dirs = makeDirs('la-sbx-old-');
    const fake = join(dirs.root, 'old-claude');
    writeFileSync(fake, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.50 (Claude Code)"; exit 0; fi\ntouch "$0.started"\nexit 1\n');
    chmodSync(fake, 0o755);
    const h = await startInProcess({ yaml: endpointYaml(sim.url), dirs, claudeExecutable: fake });
    try {
      const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 60 }));
      expect(record.status).toBe('failed');
      expect(record.error).toContain(`the sandbox cannot be trusted with ${fake} (2.1.50 (Claude Code)): Claude Code before 2.1.83 runs Bash unsandboxed when the sandbox cannot start`);
      expect(record.error).toContain('use Claude Code 2.1.83 or later');
      expect(record.claude_pid).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});

describe('a tool call can only tighten the sandbox', { timeout: 120_000 }, () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', script: [{ text: 'Done.' }] });
  });
  afterAll(async () => {
    await sim?.close();
  });

  for (const value of ['off', 'none', 'loose', false, { enabled: false }]) {
    it(`sandbox=${JSON.stringify(value)} is refused in words, and no job exists`, async () => {
      const h = await startInProcess({ yaml: endpointYaml(sim.url) });
      try {
        const error = errorOf(await h.call('run_agent', { wait_s: 0, task: 'Say hi.', sandbox: value }));
        expect(error.message).toContain('a tool call may only make the sandbox stricter');
        expect(error.message).toContain('that is defaults.sandbox in the user\'s models.yaml');
        expect(ok(await h.call('jobs')).jobs).toEqual([]);
      } finally {
        await h.close();
      }
    });
  }

  it('sandbox="strict" drops models.yaml\'s escape hatches and turns a sandbox models.yaml turned off back on', async () => {
    const yaml = endpointYaml(sim.url, { defaults: '  sandbox:\n    enabled: false\n    allow_write: ["~/.cache"]\n    allowed_domains: [registry.npmjs.org]' });
    const h = await startInProcess({ yaml });
    try {
      const record = ok(await h.call('run_agent', { task: 'Say hi.', sandbox: 'strict', wait_s: 60 }));
      expect(record.status).toBe('succeeded');
      expect(record.sandbox).toMatchObject({ enabled: true, strict: true, allow_write: [], allowed_domains: [], unsandboxed_commands: [] });
    } finally {
      await h.close();
    }
  });
});
