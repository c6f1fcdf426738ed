/**
 * Issue 11 class 3: a delegated session never gets localagents' tools. The
 * user registered the built localagents at user scope (as the README shows)
 * and allowed its tools; the scripted local model calls run_agent anyway.
 * The localagents that Claude Code starts inside the job finds the job's
 * marker and refuses to run, so the session has no such tool and no second
 * job exists. The same marker stops `localagents run` from a Bash tool.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/record/job-record.js';
import { runCli, startCli, type Started } from '../cli/cli-process.js';
import { until } from '../helpers/processes.js';
import { BIN } from '../e2e/harness.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { baseEnv, endpointYaml, makeDirs, ok, startInProcess, type InProcess } from '../reliability/in-process.js';

describe('nested delegation', () => {
  let sim: Simulator;
  let h: InProcess;
  let record: JobRecord;
  let init: { tools?: string[]; mcp_servers?: Array<{ name: string; status: string }> };
  let toolResults: string;
  let httpServer: Started | undefined;

  const jobIds = (): string[] => readdirSync(join(h.dirs.state, 'jobs'));

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    const dirs = makeDirs('la-nested-');
    // The riskiest set-up: the user brings their own settings (and so their user-scope MCP servers) into delegated sessions.
    h = await startInProcess({ yaml: endpointYaml(sim.url, { defaults: '  setting_sources: [user, project, local]' }), dirs, env: { LOCALAGENTS_STATE_DIR: dirs.state } });
    // A second localagents of the same user, over HTTP, sharing the state directory.
    httpServer = startCli(['--config', dirs.config, '--transport', 'http', '--port', '0'], { cwd: dirs.repo, env: baseEnv(dirs, { LOCALAGENTS_STATE_DIR: dirs.state }) });
    expect(await until(() => /bearer token .*: (\S+)\n/.test(httpServer!.stderr()), 60_000)).toBe(true);
    const url = /MCP streamable HTTP on (\S+)/.exec(httpServer.stderr())![1]!;
    const token = /bearer token .*: (\S+)\n/.exec(httpServer.stderr())![1]!;
    // `claude mcp add --scope user local -- localagents --config …` (and `--transport http remote URL --header …`) write this;
    // the allow rules let every tool of both run unasked.
    writeFileSync(
      join(dirs.claudeConfig, '.claude.json'),
      JSON.stringify({
        mcpServers: {
          local: { type: 'stdio', command: process.execPath, args: [BIN, '--config', dirs.config], env: { LOCALAGENTS_STATE_DIR: dirs.state } },
          remote: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
        },
      }),
    );
    writeFileSync(join(dirs.claudeConfig, 'settings.json'), JSON.stringify({ permissions: { allow: ['mcp__local', 'mcp__local__run_agent', 'mcp__remote', 'mcp__remote__run_agent'] } }));
    sim.setScript([
      // Time for Claude Code to start its MCP servers: without the marker, `local` is connected by the next turn.
      { toolUse: { name: 'Bash', input: { command: 'sleep 5', description: 'Wait' } } },
      { toolUse: { name: 'mcp__local__run_agent', input: { task: 'Write nested.txt saying pwned.', wait_s: 30 } } },
      { toolUse: { name: 'mcp__remote__run_agent', input: { task: 'Write nested.txt saying pwned.', wait_s: 30 } } },
      { toolUse: { name: 'Bash', input: { command: `${process.execPath} ${BIN} --config ${dirs.config} run "Write nested2.txt." 2>&1; echo "exit=$?"`, description: 'Start a job from the shell' } } },
      { text: 'Could not delegate.' },
    ]);
    const started = ok(await h.call('run_agent', { task: 'Delegate this to another agent.', wait_s: 100, timeout_s: 90 }));
    record = JSON.parse(readFileSync(join(dirs.state, 'jobs', String(started.id), 'job.json'), 'utf8')) as JobRecord;
    const events = readFileSync(join(dirs.state, 'jobs', record.id, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    init = (events.find((e) => e.type === 'system' && e.subtype === 'init') ?? {});
    toolResults = JSON.stringify(events.filter((e) => e.type === 'user'));
  }, 170_000);
  afterAll(async () => {
    httpServer?.child.kill('SIGTERM');
    await httpServer?.result;
    await h?.close();
    await sim?.close();
  });

  it('the session has none of the user-scope stdio server\'s tools: the model\'s run_agent call finds no such tool', () => {
    expect(record.status).toBe('succeeded');
    expect(init.mcp_servers?.map((s) => s.name)).toContain('local'); // the user's config was read
    expect((init.tools ?? []).filter((t) => t.startsWith('mcp__local'))).toEqual([]);
    expect(toolResults).toContain('No such tool available: mcp__local__run_agent');
  });

  it('a localagents HTTP front door of the same user is denied to the session (deniedMcpServers)', () => {
    expect(init.mcp_servers?.map((s) => s.name)).not.toContain('remote');
    expect((init.tools ?? []).filter((t) => t.startsWith('mcp__remote'))).toEqual([]);
    expect(toolResults).toContain('No such tool available: mcp__remote__run_agent');
  });

  it('the model\'s run_agent call and its `localagents run` from Bash start no job and write nothing', () => {
    expect(jobIds()).toEqual([record.id]);
    expect(existsSync(join(h.dirs.repo, 'nested.txt'))).toBe(false);
    expect(existsSync(join(h.dirs.repo, 'nested2.txt'))).toBe(false);
    expect(toolResults).toContain(`refusing to start \`localagents run\` inside localagents job ${record.id}: a delegated session may not delegate again`);
    expect(toolResults).toContain('exit=1');
  });
});

describe('the nested-job marker', () => {
  it('a localagents MCP server started with it refuses at once: clear stderr, non-zero exit', async () => {
    const dirs = makeDirs('la-nested-cli-');
    writeFileSync(dirs.config, endpointYaml('http://127.0.0.1:9'));
    const result = await runCli(['--config', dirs.config], { cwd: dirs.repo, env: { ...baseEnv(dirs), LOCALAGENTS_JOB_ID: 'j-outer' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('refusing to start the localagents MCP server inside localagents job j-outer: a delegated session may not delegate again');
  });
});
