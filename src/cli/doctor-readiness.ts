/**
 * The doctor checks that answer "can a job run here at all?": an "ok" line
 * must mean the thing works, so each one fails, with what to do, when no
 * job could start: no endpoint, none up, a menu nothing serves, a default
 * model that resolves to nothing, a state directory that cannot be written,
 * a configured Claude Code that is not there.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { App } from '../app.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { pathError } from '../path-errors.js';
import type { ModelListing } from '../registry/model-list.js';
import type { Stage } from '../selftest/self-test.js';

type Check = Stage;

/** Whether any job can be placed, and on what; `listing` is the one list_models answers. */
export async function readinessChecks(app: App, config: Config, listing: ModelListing): Promise<Check[]> {
  if (config.endpoints.length === 0) {
    return [{
      name: 'endpoints',
      ok: false,
      detail: `${listing.config} lists no endpoints, so no job can run`,
      fixes: ['add your model server under endpoints: in models.yaml (localagents init looks for servers on this machine and writes them)'],
    }];
  }
  const up = listing.endpoints.filter((e) => e.state === 'up' && e.models.length > 0);
  const checks: Check[] = [];
  if (up.length === 0) {
    checks.push({ name: 'jobs', ok: false, detail: `none of the ${listing.endpoints.length} endpoints is up and serving a model, so no job can run`, fixes: ['start a model server (the endpoint lines above say where), then run localagents doctor again'] });
    return checks;
  }
  const menu = listing.menu;
  if (menu.length > 0 && menu.every((m) => m.live_on.length === 0)) {
    checks.push({
      name: 'menu',
      ok: false,
      detail: `no endpoint serves any of the ${menu.length} menu entries (${menu.map((m) => m.name).join(', ')}); up: ${up.map((e) => `${e.endpoint} serves ${e.models.map((m) => m.id).join(', ')}`).join('; ')}`,
      fixes: [...menu.flatMap((m) => (m.bring_up ? [`start ${m.name}: ${m.bring_up}`] : [])), 'or add a menu entry for a model an endpoint serves (its name or id as the key)'].slice(0, 4),
    });
  }
  const wanted = config.defaults.model;
  if (wanted !== undefined) {
    const found = await app.requestModel(wanted);
    checks.push(found.available
      ? { name: 'default model', ok: true, detail: `defaults.model ${wanted} runs on ${found.live_on.map((p) => `${p.endpoint} (${p.served_model})`).join(', ')}`, fixes: [] }
      : { name: 'default model', ok: false, detail: `defaults.model ${wanted}: ${found.message}`, fixes: [found.hint ?? 'start a server for it, or set defaults.model to a model an endpoint serves'] });
  }
  return checks;
}

/** The state directory takes a file: jobs keep their records, requests and worktrees there. */
export async function stateDirCheck(stateDir: string): Promise<Check> {
  const probe = join(stateDir, `.doctor-${process.pid}`);
  try {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    await writeFile(probe, '', { mode: 0o600 });
    await rm(probe, { force: true });
    return { name: 'state directory', ok: true, detail: `${stateDir} is writable`, fixes: [] };
  } catch (err) {
    const worded = pathError(err);
    return { name: 'state directory', ok: false, detail: worded?.message ?? `${stateDir}: ${errorMessage(err)}`, fixes: [worded?.hint ?? 'set LOCALAGENTS_STATE_DIR to a folder you can write'] };
  }
}

/** What is wrong with `defaults.claude_code_path`, before trying to run it; undefined when it can be run. */
export function configuredClaudeProblem(path: string): string | undefined {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return `defaults.claude_code_path ${path} does not exist`;
  }
  if (!isFile) return `defaults.claude_code_path ${path} is not a file`;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return `defaults.claude_code_path ${path} is not executable (chmod +x '${path}')`;
  }
  return undefined;
}
