/**
 * `localagents doctor`: checks the config, every endpoint and the bundled
 * Claude Code binary, and says what to fix. Returns the findings; the CLI prints.
 */
import { dirname } from 'node:path';
import type { App } from '../app.js';
import { personWords } from '../errors.js';
import { claudeVersion, findClaudeCode, NO_CLAUDE_CODE, SOURCE_WORDS } from '../jobs/claude/claude-binary.js';
import { looseMode } from '../coord/private-files.js';
import { printable } from '../printable.js';
import { describePolicy, sandboxPolicy } from '../jobs/sandbox/policy.js';
import { sandboxProblem } from '../jobs/sandbox/preflight.js';
import { claudeCodeCheck } from '../jobs/claude/claude-code-range.js';
import { describeSources } from '../registry/format-model-list.js';
import { silentLogger } from '../log.js';
import { proveSandbox } from '../selftest/sandbox-proof.js';
import type { Stage } from '../selftest/self-test.js';
import { configuredClaudeProblem, readinessChecks, stateDirCheck } from './doctor-readiness.js';
import { routerChecks } from './doctor-router.js';

/** One line of the report: the same shape as a self-test stage, so both print alike. */
export type Check = Stage;

export async function runDoctor(app: App, env: Readonly<Record<string, string | undefined>>): Promise<Check[]> {
  const checks: Check[] = [];
  let config;
  try {
    config = await app.loadConfig();
    checks.push({
      name: 'config',
      // With no models.yaml nothing can run: not ok, and the one command that makes one.
      ok: config.path !== undefined,
      detail: config.path ? `${config.path} (${config.endpoints.length} endpoints, ${config.models.length} menu entries)` : `no models.yaml found (searched ${(config.searched ?? []).join(', ')})`,
      fixes: [...(config.warnings ?? []), ...(config.path ? [] : ['run localagents init: it looks for model servers on this machine and writes a commented models.yaml'])],
    });
  } catch (err) {
    const { message, hint } = personWords(err);
    checks.push({ name: 'config', ok: false, detail: message, fixes: hint ? [hint] : [] });
  }

  const stateMode = await looseMode(app.stateDir);
  if (stateMode !== undefined) {
    const detail = `${app.stateDir} can be read by other users (mode ${stateMode.toString(8)}), and it holds job records, transcripts and bearer tokens`;
    checks.push({ name: 'state directory', ok: false, detail, fixes: [`chmod 700 ${app.stateDir}`] });
  }
  const configDir = config?.path === undefined ? undefined : dirname(config.path);
  const configMode = configDir === undefined ? undefined : await looseMode(configDir);
  if (configDir !== undefined && configMode !== undefined) {
    // A warning, not a failure: models.yaml names secrets (api_key_env) but holds none, and may live in a shared project folder.
    checks.push({ name: 'config directory', ok: true, detail: `warning: ${configDir} can be read by other users (mode ${configMode.toString(8)}); models.local.yaml and the config are visible to them`, fixes: [`chmod 700 ${configDir} if it is yours alone`] });
  }

  if (config) {
    checks.push({ name: 'setting sources', ok: true, detail: `jobs load Claude Code settings from ${describeSources(config.defaults.setting_sources)}`, fixes: [] });
    // The same listing list_models returns, so every warning it has reaches the user here too.
    const listing = await app.listModels();
    for (const p of listing.endpoints) {
      const fixes: string[] = [];
      if (p.state === 'down' && p.hostState === 'up') fixes.push(`start the server on ${p.host ?? p.baseUrl}, or fix the port in base_url`);
      if (p.state === 'down' && p.hostState !== 'up') fixes.push(`check that ${p.host ?? p.baseUrl} is powered on and reachable from here`);
      // Each warning says what to do about it ("/slots is off: start llama-server with --slots …").
      fixes.push(...p.warnings, ...p.models.flatMap((m) => m.warnings));
      if (p.backend === 'vllm' && p.state === 'up') fixes.push('make sure vLLM runs with --enable-auto-tool-choice --tool-call-parser <parser for your model> (tool calls fail otherwise)');
      checks.push({
        name: `endpoint ${p.endpoint}`,
        ok: p.state === 'up',
        detail: `${p.state} — ${printable(p.reason)}${p.models.length ? ` [${p.models.map((m) => `${printable(m.id)} ctx ${m.context ?? '?'}`).join(', ')}]` : ''}`,
        fixes: [...new Set(fixes)],
      });
    }
    checks.push(...routerChecks(config, listing));
    checks.push(...(await readinessChecks(app, config, listing)));
  }
  checks.push(await stateDirCheck(app.stateDir));

  const claude = findClaudeCode({ configured: config?.defaults.claude_code_path, env });
  const claudeProblem = claude?.source === 'models.yaml' ? configuredClaudeProblem(claude.path) : undefined;
  if (claude === undefined) {
    checks.push({ name: 'claude code', ok: false, detail: NO_CLAUDE_CODE, fixes: ['npm ci in the localagents checkout (installs the Agent SDK and its Claude Code), or set defaults.claude_code_path in models.yaml'] });
  } else if (claudeProblem !== undefined) {
    checks.push({ name: 'claude code', ok: false, detail: claudeProblem, fixes: ['fix defaults.claude_code_path in models.yaml, or remove it to use the Claude Code bundled with the Agent SDK'] });
  } else {
    const where = `${claude.path} (${SOURCE_WORDS[claude.source]})`;
    try {
      checks.push({ name: 'claude code', ...claudeCodeCheck(await claudeVersion(claude.path, env), where) });
    } catch (err) {
      checks.push({ name: 'claude code', ok: false, detail: `${personWords(err).message} — ${where}`, fixes: [claude.source === 'models.yaml' ? 'fix defaults.claude_code_path in models.yaml' : 'reinstall dependencies (npm ci); the binary ships in @anthropic-ai/claude-agent-sdk'] });
    }
  }
  if (config) {
    const policy = sandboxPolicy(config.defaults.sandbox, undefined, env.HOME ?? '');
    const problem = policy.enabled ? await sandboxProblem({ platform: process.platform, path: env.PATH, claudePath: claude?.path, env }) : undefined;
    checks.push(
      problem === undefined
        ? { name: 'sandbox', ok: true, detail: describePolicy(policy), fixes: [] }
        : { name: 'sandbox', ok: false, detail: `${problem.what}; delegated jobs refuse to start`, fixes: [...problem.fixes] },
    );
    if (policy.enabled && problem === undefined && claude !== undefined) checks.push(await proveSandbox(env, claude.path, silentLogger)); // its job's own log lines would only repeat the check
  }
  return checks;
}

export function formatChecks(checks: readonly Check[]): string {
  return checks
    .map((c) => [`${c.ok ? (c.warn ? 'warn' : 'ok  ') : 'FAIL'} ${c.name}: ${c.detail}`, ...c.fixes.map((f) => `     fix: ${f}`)].join('\n'))
    .join('\n');
}
