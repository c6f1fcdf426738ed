/**
 * `localagents doctor`: checks the config, every endpoint and the bundled
 * Claude Code binary, and says what to fix. Returns the findings; the CLI prints.
 */
import type { App } from '../app.js';
import { errorMessage, isLocalAgentsError } from '../errors.js';
import { bundledClaudePath, claudeVersion } from '../jobs/claude-binary.js';
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
      ok: true,
      detail: config.path ? `${config.path} (${config.endpoints.length} endpoints, ${config.models.length} menu entries)` : `no models.yaml found (searched ${(config.searched ?? []).join(', ')})`,
      fixes: [...(config.warnings ?? []), ...(config.path ? [] : ['Copy models.example.yaml to ~/.config/localagents/models.yaml and edit it, or call register_endpoint.'])],
    });
  } catch (err) {
    checks.push({ name: 'config', ok: false, detail: errorMessage(err), fixes: isLocalAgentsError(err) && err.hint ? [err.hint] : [] });
  }

  if (config) {
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

  const claude = bundledClaudePath();
  if (claude === undefined) {
    checks.push({ name: 'claude code', ok: false, detail: 'the Agent SDK has no bundled claude binary for this platform', fixes: ['reinstall with npm ci on a supported platform (linux/darwin/win32, x64/arm64)'] });
  } else {
    try {
      checks.push({ name: 'claude code', ok: true, detail: `${await claudeVersion(claude, env)} at ${claude}`, fixes: [] });
    } catch (err) {
      checks.push({ name: 'claude code', ok: false, detail: errorMessage(err), fixes: ['reinstall dependencies (npm ci); the binary ships in @anthropic-ai/claude-agent-sdk'] });
    }
  }
  return checks;
}

export function formatChecks(checks: readonly Check[]): string {
  return checks
    .map((c) => [`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`, ...c.fixes.map((f) => `     fix: ${f}`)].join('\n'))
    .join('\n');
}
