/**
 * The real Claude Code, interactive in a pseudo-terminal (test/caller/pty.ts), as the caller of the built
 * localagents, both models scripted on simulators: the caller's and the local one the jobs run on. Twice: over
 * stdio as the plugin runs it (Claude Code starts plugin/start-mcp.mjs; its server/discover probe must be
 * answered within 3 s of that, docs/claude-code-wire.md §7), and over streamable HTTP. With MCP 2026-07-28
 * tasks the caller gets a delegated job back as a background task at once, answers something else meanwhile,
 * and is woken by the result; TaskStop cancels the job; two jobs started in one turn run at the same time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import type { ParsedRequest, Turn } from '../sim/types.js';
import { BIN, makeDirs, REPO_ROOT, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { until } from '../helpers/processes.js';
import { startPtyClaude, type PtyClaude } from './pty.js';

type Transport = 'stdio' | 'http';

/** The whole set over one transport: npm test runs it over stdio (the plugin's way), the real suite over HTTP. */
export function tasksSuite(transport: Transport): void {
  // Its own describe: the hooks set up one Claude Code and one server per transport, one after the other.
  describe(`over ${transport}`, () => {
    let dirs: E2EDirs;
    let local: Simulator;
    let caller: Simulator;
    let claude: PtyClaude;
    let server: ChildProcess | undefined;
    const TOKEN = 'pty-tasks-test-token-0123456789abcdef';
    let release: () => void = () => undefined;
    /** Local-model requests being held for release(), right now. */
    let holding = 0;
    let mostHeld = 0;
    /** The last tool result the calling model was shown (for failure messages). */
    let lastToolResult = '';

    const RUN = 'mcp__localagents__run_agent';
    const runAgent = (task: string): { name: string; input: Record<string, unknown> } => ({ name: RUN, input: { task } });

    function lastUser(req: ParsedRequest): string {
      return JSON.stringify([...req.messages].reverse().find((m) => m.role === 'user') ?? {});
    }

    /** The calling model, as a person's prompts and Claude Code's messages lead it. */
    function callerTurn(req: ParsedRequest): Turn {
      const last = lastUser(req);
      if (last.includes('background-task event') || last.includes('task-notification')) return { text: 'WOKEN by a finished task.' };
      if (last.includes('tool_result')) lastToolResult = last;
      if (last.includes('tool_result')) return { text: last.includes('moved to the background') ? 'DELEGATED, carrying on.' : 'TOOL ANSWERED.' };
      if (last.includes('DELEGATE_TWO')) return { toolUse: [runAgent('First half: say done.'), runAgent('Second half: say done.')] };
      if (last.includes('DELEGATE')) return { toolUse: runAgent('Say done.') };
      if (last.includes('STOP_IT')) {
        const ids = [...JSON.stringify(req.messages).matchAll(/moved to the background as task (\w+)/g)].map((m) => m[1]);
        return { toolUse: { name: 'TaskStop', input: { task_id: ids.at(-1) } } };
      }
      if (last.includes('OTHER_QUESTION')) return { text: 'OTHER_ANSWER: 4.' };
      return { text: 'OK.' };
    }

    /** Every local-model request waits for release(): its job stays running until the test lets it go. */
    function holdJobs(): void {
      const gate = new Promise<void>((resolve) => (release = resolve));
      local.setScript(async () => {
        holding++;
        mostHeld = Math.max(mostHeld, holding);
        await gate;
        holding--;
        return { text: 'LOCAL_RESULT done.' };
      });
    }

    const jobIds = (): string[] => {
      try {
        return readdirSync(join(dirs.state, 'jobs')).filter((n) => /^\d{8}-/.test(n)).sort();
      } catch {
        return [];
      }
    };
    const record = (id: string): { status: string; error?: string; started_at?: string; ended_at?: string } =>
      JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as { status: string; error?: string };
    const callerSaw = (text: string): boolean => caller.requests.some((r) => r.bodyText.includes(text));

    /** The MCP config that attaches localagents: the plugin's own stdio command, or a server already up on HTTP. */
    async function attach(transport: Transport): Promise<Record<string, unknown>> {
      if (transport === 'stdio') {
        // As the plugin's manifest starts it: no arguments, the models.yaml from the environment.
        return { localagents: { command: process.execPath, args: [join(REPO_ROOT, 'plugin', 'start-mcp.mjs')], env: serverEnv(dirs, { LOCALAGENTS_CONFIG: dirs.config }) } };
      }
      server = spawn(process.execPath, [BIN, 'mcp', '--config', dirs.config, '--transport', 'http', '--port', '0'], { cwd: dirs.repo, env: serverEnv(dirs, { LOCALAGENTS_HTTP_TOKEN: TOKEN }) });
      let stderr = '';
      server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      expect(await until(() => /MCP streamable HTTP on (\S+)/.test(stderr), 30_000, 50), stderr).toBe(true);
      const url = /MCP streamable HTTP on (\S+)/.exec(stderr)![1]!;
      return { localagents: { type: 'http', url, headers: { Authorization: `Bearer ${TOKEN}` } } };
    }

    beforeAll(async () => {
      dirs = makeDirs();
      local = await startSimulator({ flavor: 'llama.cpp', slots: 4 });
      caller = await startSimulator({ flavor: 'llama.cpp', modelId: 'caller-model', script: callerTurn });
      writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${local.url}\n`);
      const mcpConfig = await attach(transport);
      const callerHome = join(dirs.root, 'caller-home');
      mkdirSync(callerHome);
      claude = await startPtyClaude({
        cwd: dirs.repo,
        home: callerHome,
        configDir: join(callerHome, '.claude'),
        baseUrl: caller.url,
        model: caller.modelId,
        mcpConfig,
        allowedTools: [RUN, 'TaskStop'],
      });
    }, 90_000);
    afterAll(async () => {
      release();
      await claude?.close();
      await caller?.close();
      server?.kill('SIGTERM');
      await local?.close();
    });

    describe('interactive Claude Code as the caller, through MCP tasks', () => {
      it('gets the job back as a background task at once, answers something else meanwhile, and is woken by the result', async () => {
        holdJobs();
        await claude.say('DELEGATE one job please');
        expect(await claude.shows('DELEGATED', 60_000), `${await claude.screen()}\n${lastToolResult}`).toBe(true);
        const [jobId] = jobIds();
        expect(jobId).toBeDefined();
        // At once: the caller's turn has ended while the job is still running, held by the local model.
        expect(record(jobId!).status).toBe('running');
        expect(callerSaw(`started server-side task ${jobId}.`)).toBe(true);

        await claude.say('OTHER_QUESTION: what is 2+2?');
        expect(await claude.shows('OTHER_ANSWER', 30_000), await claude.screen()).toBe(true);
        expect(record(jobId!).status).toBe('running');

        release();
        expect(await claude.shows('WOKEN', 90_000), await claude.screen()).toBe(true);
        expect(record(jobId!).status).toBe('succeeded');
        // The wake-up carries the result: the job's record as localagents answers it.
        expect(await until(() => caller.requests.some((r) => r.bodyText.includes('background-task event') && r.bodyText.includes(jobId!)), 10_000)).toBe(true);
      }, 240_000);

      it('runs two jobs started in one turn at the same time, and wakes the caller with both', async () => {
        holdJobs();
        mostHeld = 0;
        const before = new Set(jobIds());
        await claude.say('DELEGATE_TWO halves please');
        expect(await until(() => mostHeld >= 2, 90_000, 100), `held ${mostHeld}; ${await claude.screen()}`).toBe(true);
        const two = jobIds().filter((id) => !before.has(id));
        expect(two).toHaveLength(2);
        expect(two.map((id) => record(id).status)).toEqual(['running', 'running']);
        release();
        expect(await until(() => two.every((id) => record(id).status === 'succeeded'), 90_000, 200)).toBe(true);
        expect(await until(() => two.every((id) => caller.requests.some((r) => r.bodyText.includes('background-task event') && r.bodyText.includes(id))), 60_000, 200), await claude.screen()).toBe(true);
      }, 240_000);

      it('cancels the job when the caller stops the task with TaskStop, and the record says so', async () => {
        holdJobs();
        const before = new Set(jobIds());
        await claude.say('DELEGATE another job');
        expect(await until(() => jobIds().some((id) => !before.has(id)) && holding > 0, 60_000, 100)).toBe(true);
        const jobId = jobIds().find((id) => !before.has(id))!;
        // Claude Code has taken it as a background task (the task id starts with the job id) before the caller stops it.
        expect(await until(() => callerSaw(`started server-side task ${jobId}.`), 60_000, 100), await claude.screen()).toBe(true);
        await claude.say('STOP_IT now');
        expect(await until(() => record(jobId).status === 'cancelled', 60_000, 200), await claude.screen()).toBe(true);
        expect(record(jobId).error).toContain("the caller's TaskStop");
      }, 180_000);
    });
  });
}
