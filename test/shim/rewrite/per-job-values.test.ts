/**
 * The per-job values rule on the shape Claude Code sends with the sandbox on (measured with 2.1.332,
 * test/e2e/per-job-values.e2e.test.ts): the environment block at messages[1], folded to the start of messages[0],
 * naming the job's temp folder, its settings folder and its session id inside the sandbox's filesystem lists.
 */
import { describe, expect, it } from 'vitest';
import { normaliseRequest } from '../../../src/shim/body/normalise.js';
import { namePerJobValues, type PerJobValue } from '../../../src/shim/rewrite/per-job-values.js';

interface Job {
  readonly temp: string;
  readonly settings: string;
  readonly session: string;
}

const JOB_A: Job = { temp: '/tmp/localagents-job.48211@7290512.8d0c4f8e-35a1-4c55-9a3e-0f6a1b2c3d4e.d', settings: '/tmp/localagents-settings.48211@7290512.1f2e3d4c-5b6a-4978-8a9b-c0d1e2f3a4b5.d', session: '490e9786-cc05-4f61-8b0d-54ee96937a33' };
const JOB_B: Job = { temp: '/tmp/localagents-job.48230@7290640.6e5d4c3b-2a19-4807-b6c5-d4e3f2a1b0c9.d', settings: '/tmp/localagents-settings.48230@7290640.0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.d', session: '267d62bd-4b71-4649-b6a6-d5c88f1c1ab6' };

function environment(job: Job): string {
  const write = ['/tmp/la-repo-dlHJS8', job.temp, `${job.settings}/settings.json`, `${job.temp}/claude-0/-tmp-la-repo-dlHJS8/${job.session}/tasks`];
  return `## Bash command sandbox\nFilesystem: ${JSON.stringify({ write: { allowOnly: write } })}\n\n# Environment\n - Primary working directory: /tmp/la-repo-dlHJS8`;
}

function values(job: Job): PerJobValue[] {
  return [
    { name: '{job-temp}', value: job.temp },
    { name: '{job-settings}', value: job.settings },
    { name: '{session-id}', value: job.session },
  ];
}

/** A request as Claude Code sends it: the task, the environment as a system message, then `turns` more messages. */
function request(job: Job, task: string, turns = 0): Record<string, unknown> {
  const later = [
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md' }] },
  ].slice(0, turns);
  return {
    model: 'claude-sonnet',
    system: [{ type: 'text', text: 'You are Claude Code.' }],
    tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
    messages: [{ role: 'user', content: [{ type: 'text', text: task }] }, { role: 'system', content: environment(job) }, ...later],
  };
}

function normalised(job: Job, task: string, turns = 0): string {
  return JSON.stringify(normaliseRequest(request(job, task, turns), { servedModel: 'qwen', perJobValues: values(job) }).body);
}

/** Length of the common start of two strings. */
function common(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

describe('namePerJobValues', () => {
  it('two jobs with the same task differ only after the task: the environment block reads the same for both', () => {
    const a = normalised(JOB_A, 'Say done.');
    const b = normalised(JOB_B, 'Say done.');
    const shared = a.slice(0, common(a, b));
    expect(shared).toContain('"text":"Say done."');
    expect(shared).toContain('{job-temp}/claude-0/-tmp-la-repo-dlHJS8/{session-id}/tasks');
    expect(shared).toContain('{job-settings}/settings.json');
    for (const v of [JOB_A, JOB_B].flatMap((j) => [j.temp, j.settings, j.session])) expect(shared).not.toContain(v);
    // Without the rule the two prompts part inside the environment block, before the task.
    const rawA = JSON.stringify(normaliseRequest(request(JOB_A, 'Say done.'), { servedModel: 'qwen' }).body);
    const rawB = JSON.stringify(normaliseRequest(request(JOB_B, 'Say done.'), { servedModel: 'qwen' }).body);
    expect(rawA.slice(0, common(rawA, rawB))).not.toContain('Say done.');
  });

  it('the model still reads each real value, once, in a note after its task', () => {
    const body = normaliseRequest(request(JOB_A, 'Say done.'), { servedModel: 'qwen', perJobValues: values(JOB_A) });
    const first = (body.body as { messages: Array<{ content: Array<{ text: string }> }> }).messages[0];
    const texts = first?.content.map((b) => b.text) ?? [];
    expect(texts[texts.length - 2]).toBe('Say done.');
    expect(texts[texts.length - 1]).toBe(
      `<system>In the environment above, {job-settings} stands for ${JOB_A.settings}, {job-temp} stands for ${JOB_A.temp}, {session-id} stands for ${JOB_A.session} (they differ from job to job).</system>`,
    );
    expect(body.notes.perJobValuesNamed).toBe(3);
  });

  it('every request of a job rewrites the first message the same way, so the prefix holds from turn to turn', () => {
    const first = normalised(JOB_A, 'List the files.', 0);
    const later = normalised(JOB_A, 'List the files.', 2);
    expect(later.startsWith(first.slice(0, -4))).toBe(true);
  });

  it('leaves the task and later messages alone, and names only values that occur', () => {
    const body = request(JOB_A, `Look in ${JOB_A.temp} please.`, 2);
    const out = namePerJobValues(normaliseRequest(body, { servedModel: 'qwen' }).body, [{ name: '{job-temp}', value: JOB_A.temp }, { name: '{other}', value: '/not/there' }]);
    const messages = (out.body as { messages: Array<{ content: Array<{ text?: string }> }> }).messages;
    expect(messages[0]?.content.some((b) => b.text === `Look in ${JOB_A.temp} please.`)).toBe(true);
    expect(messages[0]?.content.at(-1)?.text).toBe(`<system>In the environment above, {job-temp} stands for ${JOB_A.temp} (they differ from job to job).</system>`);
    expect(out.named).toBe(1);
  });

  it('returns the body itself when no value occurs, or there are none (an unsandboxed job)', () => {
    const body = normaliseRequest(request(JOB_A, 'Say done.'), { servedModel: 'qwen' }).body;
    expect(namePerJobValues(body, [{ name: '{job-temp}', value: '/elsewhere' }]).body).toBe(body);
    expect(namePerJobValues(body, [{ name: '{job-temp}', value: '' }]).body).toBe(body);
    expect(namePerJobValues(body, []).changed).toBe(false);
  });
});
