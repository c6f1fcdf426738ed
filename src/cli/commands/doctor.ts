/** `localagents doctor [--self-test]`: check the setup, or prove it end to end without a model server. */
import type { Command } from 'commander';
import { runSelfTest } from '../../selftest/self-test.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { formatChecks, runDoctor } from '../doctor.js';
import { print, printJson } from '../output.js';
import { withApp } from '../with-app.js';

async function selfTest(ctx: CliContext, json: boolean): Promise<void> {
  if (!json) print('localagents self-test: one real Claude Code job through the shim, against a built-in scripted model on 127.0.0.1');
  const report = await runSelfTest({ env: ctx.env, log: ctx.log, onStage: json ? undefined : (stage) => print(formatChecks([stage])) });
  if (json) printJson(report);
  else if (report.ok) print('self-test passed: Claude Code, the shim and worktrees work here. Next: start a model server, add it to models.yaml, run localagents doctor.');
  else print(`self-test FAILED; the evidence is in ${report.evidence ?? '(nothing kept)'}`);
  ctx.exitCode = report.ok ? 0 : 1;
}

export function registerDoctor(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description('check the config, every endpoint and the bundled Claude Code binary; say how to fix what is wrong')
    .option('--self-test', 'instead: run one real job end to end (Claude Code, shim, worktree) against a built-in scripted model; needs no model server and no models.yaml')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
--self-test works in a temporary folder (its own HOME, CLAUDE_CONFIG_DIR, state
and git repository) and removes it afterwards; on failure it keeps it and says
where. It never touches ~/.claude or models.yaml. Exit code 0 when everything passed.

Examples:
  localagents doctor
  localagents doctor --self-test
  localagents --config ./models.yaml doctor --json`)
    .action((opts: { selfTest?: boolean; json?: boolean }) => {
      if (opts.selfTest) return selfTest(ctx, opts.json === true);
      return withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const checks = await runDoctor(app, ctx.env);
        if (opts.json) printJson(checks);
        else print(formatChecks(checks));
        ctx.exitCode = checks.every((c) => c.ok) ? 0 : 1;
      });
    });
}
