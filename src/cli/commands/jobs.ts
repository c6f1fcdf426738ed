/**
 * `localagents jobs` and `localagents show JOB`: the records, as a table or one
 * page. Both read through the app's read side (src/app/read-app.ts): a record
 * is the whole truth about a job of another process, and this one runs none.
 */
import type { Command } from 'commander';
import { createReadApp } from '../../app/read-app.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { jobDetails, jobJson, jobTable } from '../format-job.js';
import { loadJob } from '../job-arg.js';
import { print, printJson, printNote, processTerminal } from '../output.js';
import { jobUsageJson } from '../../usage/job-summary.js';
import { refreshOutcomes } from '../../jobs/git/outcome-check.js';

export function registerJobs(program: Command, ctx: CliContext): void {
  program
    .command('jobs')
    .description('list running and queued jobs (of every localagents process using this state folder); --all adds finished ones')
    .option('--all', 'include finished jobs')
    .option('--json', 'print the job records as a JSON array')
    .addHelpText('after', '\nExamples:\n  localagents jobs\n  localagents jobs --all\n  localagents jobs --all --json | jq -r \'.[] | select(.status=="failed") | .id\'')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const app = createReadApp({ configPath: program.opts<GlobalOptions>().config, cwd: ctx.cwd, env: ctx.env });
      // Without --all, only the live jobs' records are read (found on the slot board), not every one on file.
      const { records, damaged } = opts.all ? await app.store.list() : await app.liveJobs().then((live) => ({ records: live.jobs.map((j) => j.record), damaged: live.damaged }));
      if (opts.json) printJson(records.map(jobJson));
      else if (records.length > 0) print(jobTable(records, processTerminal().columns()));
      else {
        const others = opts.all ? 0 : (await app.store.ids()).length;
        print(opts.all ? `no jobs on record in ${app.store.root}` : `no running or queued jobs${others ? `; localagents jobs --all shows the ${others} finished ones` : ''}`);
      }
      // On stderr, so --json output stays one parseable array.
      for (const d of damaged) printNote(`damaged job record ${d.id}: ${d.file}: ${d.problem}`);
    });
}

export function registerShow(program: Command, ctx: CliContext): void {
  program
    .command('show')
    .description('one job: status, result, files touched, worktree and where its logs are')
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--json', 'print the job record as JSON')
    .addHelpText('after', '\nExamples:\n  localagents show 20261129-111500-7gk2mq4xrz9d\n  localagents show 20261129-111500-7gk2mq4xrz9d --json | jq .worktree')
    .action(async (id: string, opts: { json?: boolean }) => {
      const app = createReadApp({ configPath: program.opts<GlobalOptions>().config, cwd: ctx.cwd, env: ctx.env });
      const loaded = await loadJob(app.store, id);
      const record = (await refreshOutcomes(app.store, [loaded], 'localagents show'))[0] ?? loaded;
      const usage = await app.jobUsage(record);
      if (opts.json) printJson({ ...jobJson(record), usage_summary: jobUsageJson(usage) });
      else print(jobDetails(record, app.store.paths(record.id), usage.text));
    });
}
