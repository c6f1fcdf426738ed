/** `localagents init`: find model servers on this machine and write a commented models.yaml where the loader looks. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { detectServers, USUAL_PORTS } from '../../backends/detect.js';
import { addStatusLine, claudeSettingsPath } from '../../config/claude-statusline.js';
import { initFile, MAX_MODEL_ID_CHARS, writeNewConfig } from '../../config/init-file.js';
import { CONFIG_ENV_VAR, CONFIG_FILE_NAME, userConfigDir } from '../../config/locate.js';
import { BadArgumentError } from '../../errors.js';
import { printable } from '../../printable.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { formatChecks } from '../doctor.js';
import { routerChecks } from '../doctor-router.js';
import { print, printJson, processTerminal } from '../output.js';
import { withApp } from '../with-app.js';

/** Where the loader will find it: --config, then $LOCALAGENTS_CONFIG, else the user config dir (XDG_CONFIG_HOME). */
function targetPath(ctx: CliContext, configOption: string | undefined): string {
  const explicit = configOption ?? ctx.env[CONFIG_ENV_VAR];
  if (explicit) return resolve(ctx.cwd, explicit);
  return join(userConfigDir(ctx.env, ctx.env.HOME ?? homedir()), CONFIG_FILE_NAME);
}

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('look for model servers on the usual local ports and write a commented models.yaml (never overwrites one)')
    .option('--ports <list>', 'also try these ports on 127.0.0.1, comma-separated')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Ports tried on 127.0.0.1: ${USUAL_PORTS.map((p) => `${p.port} (${p.usually})`).join(', ')}.
The file goes where localagents looks for it: --config PATH, else $LOCALAGENTS_CONFIG,
else $XDG_CONFIG_HOME/localagents/models.yaml (~/.config/localagents/models.yaml).

Examples:
  localagents init
  localagents init --ports 8081,9000
  localagents --config ./models.yaml init`)
    .action(async (opts: { json?: boolean; ports?: string }) => {
      const path = targetPath(ctx, program.opts<GlobalOptions>().config);
      const extra = (opts.ports ? opts.ports.split(',') : []).map((p) => {
        const n = Number(p.trim());
        if (!Number.isInteger(n) || n < 1 || n > 65_535) throw new BadArgumentError('--ports', `--ports takes port numbers (1-65535) separated by commas, not "${p}"`);
        return n;
      });
      const ports = [...new Set([...USUAL_PORTS.map((p) => p.port), ...extra])];
      const found = await detectServers('127.0.0.1', ports);
      const file = initFile(found, ports.map((port) => `http://127.0.0.1:${port}`));
      await writeNewConfig(path, file);
      // A router's models, states and windows, read through the file just written as doctor reads them (nothing loads).
      const routers = found.some((s) => s.router) ? await withApp(ctx, path, async (app) => routerChecks(await app.loadConfig(), await app.listModels())) : [];
      if (opts.json) {
        printJson({ path, found, refused_model_ids: file.refusedIds, routers });
        return;
      }
      const lines = [`looked on 127.0.0.1 at ports ${ports.join(', ')}:`];
      if (found.length === 0) lines.push('  no model server answered');
      for (const server of found) {
        const ids = server.models.filter((id) => !file.refusedIds.some((r) => r.baseUrl === server.baseUrl && r.id === id));
        lines.push(`  found ${server.backend}${server.router ? ' in router mode' : ''} at ${server.baseUrl}${ids.length ? `, serving ${ids.join(', ')}` : ''}`);
      }
      if (routers.length > 0) lines.push(formatChecks(routers));
      for (const r of file.refusedIds) {
        lines.push(`  warning: ${r.baseUrl} sent a model id that is not one printable line of at most ${MAX_MODEL_ID_CHARS} characters; not written: "${printable(r.id.slice(0, 120))}"${r.id.length > 120 ? '…' : ''}`);
      }
      lines.push(`wrote ${path}${found.length ? '' : ' (with commented examples: uncomment one once a server runs)'}`);
      lines.push('Next: localagents doctor checks it; localagents models shows what each server serves.');
      print(lines.join('\n'));
      await offerStatusLine(ctx);
    });
}

/** At a terminal only, and only on an explicit yes: localagents in Claude Code's status line. */
async function offerStatusLine(ctx: CliContext): Promise<void> {
  const terminal = processTerminal();
  if (!terminal.interactive) return;
  const file = claudeSettingsPath(ctx.env, ctx.env.HOME ?? homedir());
  terminal.write(`Show running jobs and today's estimated savings in Claude Code's status line? This adds statusLine to ${file} (backed up first). [y/N] `);
  const key = await terminal.readKey();
  terminal.write('\n');
  if (key?.toLowerCase() !== 'y') {
    print('left Claude Code\'s settings as they are (the README shows the statusLine snippet)');
    return;
  }
  const outcome = await addStatusLine(file);
  if (outcome.added) print(`added "statusLine": localagents statusline to ${file}${outcome.backup ? ` (the old file is ${outcome.backup})` : ''}`);
  else print(`${file} already has a statusLine (${JSON.stringify(outcome.existing).slice(0, 120)}); left it as it is`);
}
