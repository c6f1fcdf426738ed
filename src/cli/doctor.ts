/**
 * `localagents doctor`: checks the config, every endpoint and the bundled
 * Claude Code binary, and says what to fix. Returns the findings; the CLI prints.
 */
import type { App } from '../app.js';
import { errorMessage, isLocalAgentsError } from '../errors.js';
import { claudeVersion, findClaudeCode, NO_CLAUDE_CODE, SOURCE_WORDS } from '../jobs/claude-binary.js';
import { claudeCodeCheck } from '../jobs/claude-code-range.js';
import { describeSources } from '../registry/format-model-list.js';
import type { Stage } from '../selftest/self-test.js';

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
    checks.push({ name: 'config', ok: false, detail: errorMessage(err), fixes: isLocalAgentsError(err) && err.hint ? [err.hint] : [] });
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
        detail: `${p.state} — ${p.reason}${p.models.length ? ` [${p.models.map((m) => `${m.id} ctx ${m.context ?? '?'}`).join(', ')}]` : ''}`,
        fixes: [...new Set(fixes)],
      });
    }
  }

  const claude = findClaudeCode({ configured: config?.defaults.claude_code_path, env });
  if (claude === undefined) {
    checks.push({ name: 'claude code', ok: false, detail: NO_CLAUDE_CODE, fixes: ['npm ci in the localagents checkout (installs the Agent SDK and its Claude Code), or set defaults.claude_code_path in models.yaml'] });
  } else {
    const where = `${claude.path} (${SOURCE_WORDS[claude.source]})`;
    try {
      checks.push({ name: 'claude code', ...claudeCodeCheck(await claudeVersion(claude.path, env), where) });
    } catch (err) {
      checks.push({ name: 'claude code', ok: false, detail: `${errorMessage(err)} — ${where}`, fixes: [claude.source === 'models.yaml' ? 'fix defaults.claude_code_path in models.yaml' : 'reinstall dependencies (npm ci); the binary ships in @anthropic-ai/claude-agent-sdk'] });
    }
  }
  return checks;
}

export function formatChecks(checks: readonly Check[]): string {
  return checks
    .map((c) => [`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`, ...c.fixes.map((f) => `     fix: ${f}`)].join('\n'))
    .join('\n');
}
