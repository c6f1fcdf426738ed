/** `localagents jobs` and `localagents show JOB`: the records, as a table or one page. */
import type { Command } from 'commander';
import { FINISHED } from '../../jobs/job-record.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { jobDetails, jobJson, jobTable } from '../format-job.js';
import { loadJob } from '../job-arg.js';
import { print, printJson, printNote, processTerminal } from '../output.js';
import { withApp } from '../with-app.js';

export function registerJobs(program: Command, ctx: CliContext): void {
  program
    .command('jobs')
    .description('list running and queued jobs (of every localagents process using this state folder); --all adds finished ones')
    .option('--all', 'include finished jobs')
    .option('--json', 'print the job records as a JSON array')
    .addHelpText('after', '\nExamples:\n  localagents jobs\n  localagents jobs --all\n  localagents jobs --all --json | jq -r \'.[] | select(.status=="failed") | .id\'')
    .action((opts: { all?: boolean; json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const { records, damaged } = await app.jobs.list(opts.all === true);
        // On stderr, so --json output stays one parseable array.
        const reportDamaged = (): void => {
          for (const d of damaged) printNote(`damaged job record ${d.id}: ${d.file}: ${d.problem}`);
        };
        if (opts.json) {
          printJson(records.map(jobJson));
          return reportDamaged();
        }
        if (records.length > 0) {
          print(jobTable(records, processTerminal().columns()));
          return reportDamaged();
        }
        const finished = opts.all ? 0 : (await app.jobs.list(true)).records.filter((r) => FINISHED.has(r.status)).length;
        print(opts.all ? `no jobs on record in ${app.store.root}` : `no running or queued jobs${finished ? `; localagents jobs --all shows the ${finished} finished ones` : ''}`);
        reportDamaged();
      }),
    );

  program
    .command('show')
    .description('one job: status, result, files touched, worktree and where its logs are')
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--json', 'print the job record as JSON')
    .addHelpText('after', '\nExamples:\n  localagents show 20261129-111500-7gk2mq4xrz9d\n  localagents show 20261129-111500-7gk2mq4xrz9d --json | jq .worktree')
    .action((id: string, opts: { json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const record = await loadJob(app, id);
        if (opts.json) printJson(jobJson(record));
        else print(jobDetails(record, app.jobPaths(record.id)));
      }),
    );
}
