/**
 * Transcripts that are not what they seem, in a caller's project folder: a line of
 * 5 MiB, a link to a file outside ~/.claude/projects, a FIFO, lines that are not JSON,
 * a file of another user, a project folder that is itself a link out. Each is read
 * within its bounds or skipped with its reason named; the cost is found where it
 * honestly can be, and is otherwise unknown with the reasons, never a figure.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallerEntry } from '../../src/jobs/record/caller-log.js';
import { resolveCallerCost, transcriptReader } from '../../src/usage/transcripts/caller-cost.js';
import { MAX_LINE_BYTES } from '../../src/usage/transcripts/transcript-turns.js';

const CWD = '/home/dev/my.project';
const FOLDER = '-home-dev-my-project';
const NOW = new Date('2026-12-05T12:00:00Z');
const ENDED = '2026-12-05T11:59:00Z';
const JOB = '20261205-115800-abcdef';

/** A caller's session: a turn that calls run_agent (id `id`), the result, the turn that reads it. */
function session(id: string, usage: { input: number; output: number }): string {
  const lines = [
    { type: 'assistant', message: { id: `msg-${id}-1`, model: 'claude-opus-5', content: [{ type: 'tool_use', id, name: 'mcp__localagents__run_agent' }], usage: { input_tokens: usage.input, cache_read_input_tokens: 100, output_tokens: usage.output } } },
    { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'done' }] } },
    { type: 'assistant', message: { id: `msg-${id}-2`, model: 'claude-opus-5', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1, cache_read_input_tokens: 200, output_tokens: 2 } } },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const call = (id: string, cwd = CWD): CallerEntry => ({ t: ENDED, tool: 'run_agent', args_bytes: 10, result_bytes: 10, tool_use_id: id, caller_cwd: cwd });

let root: string;
let projects: string;
let folder: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'la-hostile-'));
  projects = join(root, 'config', 'projects');
  folder = join(projects, FOLDER);
  outside = join(root, 'elsewhere');
  mkdirSync(folder, { recursive: true });
  mkdirSync(outside);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const resolve = (ids: string[]) => resolveCallerCost(JOB, ids.map((id) => call(id)), ENDED, transcriptReader({ CLAUDE_CONFIG_DIR: join(root, 'config') }), NOW);

describe('hostile transcripts', () => {
  it('a line over the limit is skipped, the lines after it are read', async () => {
    writeFileSync(join(folder, 'huge.jsonl'), `{"type":"user","pad":"${'x'.repeat(MAX_LINE_BYTES + 1024)}"}\n${session('toolu_a', { input: 7, output: 9 })}`);
    const found = await resolve(['toolu_a']);
    expect(found).toEqual({ final: true, cost: { model: 'claude-opus-5', turns: 2, tokens: { input: 8, cacheRead: 300, cacheWrite5m: 0, cacheWrite1h: 0, output: 11 }, transcript: join(folder, 'huge.jsonl'), shared: false } });
  });

  it('cache writes keep their 5-minute / 1-hour split; a turn written over several lines counts once, with its last usage', async () => {
    const usage = { input_tokens: 4, cache_read_input_tokens: 10, cache_creation_input_tokens: 700, cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 500 }, output_tokens: 3 };
    const lines = [
      { type: 'assistant', message: { id: 'm1', model: 'claude-opus-5', content: [{ type: 'text', text: 'Delegating.' }], usage: { ...usage, output_tokens: 1 } } },
      { type: 'assistant', message: { id: 'm1', model: 'claude-opus-5', content: [{ type: 'tool_use', id: 'toolu_s', name: 'mcp__la__run_agent' }], usage } },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_s', content: 'done' }] } },
    ];
    writeFileSync(join(folder, 'split.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const found = await resolve(['toolu_s']);
    expect(found.cost).toMatchObject({ turns: 1, tokens: { input: 4, cacheRead: 10, cacheWrite5m: 200, cacheWrite1h: 500, output: 3 } });
    expect(found.final).toBe(false); // the turn that reads the result is not written yet
  });

  it('lines that are not JSON are skipped; a file of nothing but them holds no calls', async () => {
    writeFileSync(join(folder, 'invalid.jsonl'), `{not json\n[1,2\n${session('toolu_b', { input: 5, output: 5 })}`);
    expect((await resolve(['toolu_b'])).cost).toMatchObject({ turns: 2, tokens: { input: 6, output: 7 } });
    const none = await resolve(['toolu_missing']);
    expect(none.cost).toEqual({ unknown: `the job's calls are in none of the 1 newest transcripts in ${folder}` });
    expect(none.final).toBe(false); // the job ended a minute ago: the transcript may still get them
  });

  it('a link out of the projects folder, a FIFO and another user\'s file are skipped, each with its reason', async () => {
    writeFileSync(join(outside, 'planted.jsonl'), session('toolu_c', { input: 1_000_000, output: 1_000_000 }));
    symlinkSync(join(outside, 'planted.jsonl'), join(folder, 'link.jsonl'));
    execFileSync('mkfifo', [join(folder, 'fifo.jsonl')]);
    writeFileSync(join(folder, 'other.jsonl'), session('toolu_c', { input: 2_000_000, output: 2_000_000 }));
    chownSync(join(folder, 'other.jsonl'), 65534, 65534);
    const found = await resolve(['toolu_c']);
    expect('unknown' in found.cost).toBe(true);
    const why = (found.cost as { unknown: string }).unknown;
    expect(why).toContain(`no readable transcript in ${folder} (skipped: `);
    expect(why).toContain(`${join(folder, 'link.jsonl')}: a symbolic link (not followed)`);
    expect(why).toContain(`${join(folder, 'fifo.jsonl')}: a FIFO, not a regular file`);
    expect(why).toContain(`${join(folder, 'other.jsonl')}: owned by another user (uid 65534)`);
  });

  it('a project folder that is a link out of ~/.claude/projects is not read', async () => {
    rmSync(folder, { recursive: true });
    writeFileSync(join(outside, 'planted.jsonl'), session('toolu_d', { input: 5, output: 5 }));
    symlinkSync(outside, folder);
    const found = await resolve(['toolu_d']);
    expect(found.cost).toEqual({ unknown: `${folder} is a symbolic link; transcripts are read only inside ${projects}` });
  });

  it('the folder is the cwd with every non-alphanumeric as -; a name over 200 characters is found by its cut', async () => {
    const long = `/home/${'a'.repeat(240)}`;
    const name = `${long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-1x2y3z`;
    mkdirSync(join(projects, name));
    writeFileSync(join(projects, name, 's.jsonl'), session('toolu_e', { input: 3, output: 4 }));
    const found = await resolveCallerCost(JOB, [call('toolu_e', long)], ENDED, transcriptReader({ CLAUDE_CONFIG_DIR: join(root, 'config') }), NOW);
    expect(found.cost).toMatchObject({ model: 'claude-opus-5', turns: 2 });
  });
});
