/**
 * `localagents jobs` and `localagents show JOB`: the records, as a table or one
 * page. Both read the state directory only, without building the app: a record
 * is the whole truth about a job of another process, and this one runs none.
 */
import { createJobStore, stateDirFrom } from '../../jobs/record/job-store.js';
import { liveJobs } from '../../jobs/queue/live-jobs.js';
import { loadPriceSettings, NO_PRICE_SETTINGS } from '../../config/price-settings.js';
import { jobUsageJson, jobUsageSummary } from '../../usage/job-summary.js';
import { transcriptReader } from '../../usage/transcripts/caller-cost.js';
import { jobDetails, jobJson, jobTable } from '../format-job.js';
import { loadJob } from '../job-arg.js';
import { print, printJson, printNote, processTerminal } from '../output.js';
import type { ReadCommand } from '../read-command.js';

export const JOBS_COMMAND: ReadCommand = {
  name: 'jobs',
  description: 'list running and queued jobs (of every localagents process using this state folder); --all adds finished ones',
  options: [
    { flags: '--all', description: 'include finished jobs' },
    { flags: '--json', description: 'print the job records as a JSON array' },
  ],
  helpAfter: '\nExamples:\n  localagents jobs\n  localagents jobs --all\n  localagents jobs --all --json | jq -r \'.[] | select(.status=="failed") | .id\'',
  async run(ctx, _configPath, _argument, opts) {
    const stateDir = stateDirFrom(ctx.env);
    const jobs = createJobStore(stateDir);
    // Without --all, only the live jobs' records are read (found on the slot board), not every one on file.
    const { records, damaged } = opts['all'] ? await jobs.list() : await liveJobs(stateDir, jobs).then((live) => ({ records: live.jobs.map((j) => j.record), damaged: live.damaged }));
    if (opts['json']) printJson(records.map(jobJson));
    else if (records.length > 0) print(jobTable(records, processTerminal().columns()));
    else {
      const others = opts['all'] ? 0 : (await jobs.ids()).length;
      print(opts['all'] ? `no jobs on record in ${jobs.root}` : `no running or queued jobs${others ? `; localagents jobs --all shows the ${others} finished ones` : ''}`);
    }
    // On stderr, so --json output stays one parseable array.
    for (const d of damaged) printNote(`damaged job record ${d.id}: ${d.file}: ${d.problem}`);
  },
};

export const SHOW_COMMAND: ReadCommand = {
  name: 'show',
  description: 'one job: status, result, files touched, worktree and where its logs are',
  argument: { name: 'job', description: 'job id, a unique prefix of it or of its last part, or last' },
  options: [{ flags: '--json', description: 'print the job record as JSON' }],
  helpAfter: '\nExamples:\n  localagents show 20261129-111500-7gk2mq4xrz9d\n  localagents show 20261129-111500-7gk2mq4xrz9d --json | jq .worktree',
  async run(ctx, configPath, id, opts) {
    const stateDir = stateDirFrom(ctx.env);
    const jobs = createJobStore(stateDir);
    const record = await loadJob(jobs, id ?? '');
    const prices = await loadPriceSettings({ configPath, cwd: ctx.cwd, env: ctx.env }, stateDir).catch(() => NO_PRICE_SETTINGS);
    const usage = await jobUsageSummary(record, jobs, prices, { reader: transcriptReader(ctx.env), now: new Date() });
    if (opts['json']) printJson({ ...jobJson(record), usage_summary: jobUsageJson(usage) });
    else print(jobDetails(record, jobs.paths(record.id), usage.text));
  },
};
