/** job_log: the tail of a job's readable transcript. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { BadArgumentError } from '../../errors.js';
import { guarded, okResult } from '../tool-result.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { limitLines, limitsField, softCap, toolInput } from './args.js';

const MAX_LINES = 2000;
const lineCount = (what: string): z.ZodOptional<z.ZodNumber> =>
  z.number().int().min(1).optional().describe(`${what} Default 60; at most ${MAX_LINES} come back (the result says when it was lowered).`);

export function registerJobLog(server: McpServer, app: App): void {
  server.registerTool(
    'job_log',
    {
      title: 'Job transcript',
      description: 'The last lines of the job\'s transcript: assistant text, thinking (shortened), tool calls and results, backend errors and retries.',
      inputSchema: toolInput('job_log', {
        job_id: jobRefField('The job: the id run_agent returned.'),
        lines: lineCount('How many lines from the end.'),
        tail_lines: lineCount('Same as lines (the original localagents\' name).'),
      }),
      outputSchema: z.looseObject({ job_id: z.string(), transcript: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      if (args.lines !== undefined && args.tail_lines !== undefined && args.lines !== args.tail_lines) {
        throw new BadArgumentError('tail_lines', `lines=${args.lines} and tail_lines=${args.tail_lines} disagree; tail_lines is another name for lines, give one`);
      }
      const asked = args.lines ?? args.tail_lines;
      const name = args.lines === undefined && args.tail_lines !== undefined ? 'tail_lines' : 'lines';
      const count = softCap(name, asked, 60, MAX_LINES, `at most ${MAX_LINES} lines come back in one call`);
      const id = await resolveJobArg(app, args.job_id);
      const transcript = await app.jobs.tail(id, count.value);
      const text = [transcript || '(no transcript yet)', ...limitLines([count.applied])].join('\n');
      return okResult(text, { job_id: id, transcript, ...limitsField([count.applied]) });
    }),
  );
}
