/**
 * The Claude Code plugin in this repository: the bundled Claude Code accepts
 * its manifests and sees the MCP server and the skill; the launcher the
 * manifest names starts the committed single-file server with nothing but the
 * plugin folder (no node_modules, no dist/), says why on its first stderr line
 * when it cannot, and the committed bundle is built from the current src/.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, copyFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { bundledClaudePath } from '../../src/jobs/claude/claude-binary.js';
import { bundleTexts } from '../../scripts/bundle.mjs';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

async function toolsFromLauncher(launcher: string): Promise<string[]> {
  const home = mkdtempSync(join(tmpdir(), 'la-plugin-home-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [launcher],
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOCALAGENTS_STATE_DIR: join(home, 'state'), LOCALAGENTS_LOG: 'error' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'plugin-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('Claude Code plugin', () => {
  it('passes `claude plugin validate` and provides the MCP server and the skill', async () => {
    const claude = bundledClaudePath();
    expect(claude).toBeDefined();
    const home = mkdtempSync(join(tmpdir(), 'la-validate-'));
    const { stdout, stderr } = await run(claude!, ['plugin', 'validate', REPO_ROOT], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, 'claude'), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
      timeout: 60_000,
    });
    const out = `${stdout}${stderr}`;
    expect(out).toContain('Validation passed');
    expect(out).toContain('mcpServers: localagents stdio node ["${CLAUDE_PLUGIN_ROOT}/plugin/start-mcp.mjs"]');
    expect(out).toContain('skills: localagents:delegate-to-local-models');
  }, 90_000);

  it('starts the MCP server from the repository', async () => {
    expect(await toolsFromLauncher(join(REPO_ROOT, 'plugin', 'start-mcp.mjs'))).toContain('run_agent');
  }, 60_000);

  it('starts the MCP server from the plugin folder alone: no node_modules, no dist/', async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'la-checkout-'));
    mkdirSync(join(checkout, 'plugin'));
    for (const file of ['plugin/start-mcp.mjs', 'plugin/stdio-hold.mjs', 'plugin/localagents.mjs', 'package.json']) copyFileSync(join(REPO_ROOT, file), join(checkout, file));
    const tools = await toolsFromLauncher(join(checkout, 'plugin', 'start-mcp.mjs'));
    expect(tools).toEqual(expect.arrayContaining(['list_models', 'run_agent', 'wait_job', 'jobs']));
  }, 60_000);

  it('says why it cannot start on the first stderr line (what /mcp shows)', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'la-broken-'));
    mkdirSync(join(checkout, 'plugin'));
    copyFileSync(join(REPO_ROOT, 'plugin', 'start-mcp.mjs'), join(checkout, 'plugin', 'start-mcp.mjs'));
    const run = spawnSync(process.execPath, [join(checkout, 'plugin', 'start-mcp.mjs')], { encoding: 'utf8', input: '', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(`localagents cannot start: ${join(checkout, 'plugin', 'localagents.mjs')} is missing (an incomplete plugin copy)`);
  });

  it('ships a bundle built from the current src/ (npm run bundle)', async () => {
    for (const [file, fresh] of Object.entries(await bundleTexts())) {
      // Compared by equality, not printed: the bundle is megabytes.
      expect(readFileSync(file, 'utf8') === fresh, `${file} is stale: run npm run bundle and commit it`).toBe(true);
    }
  }, 60_000);
});
