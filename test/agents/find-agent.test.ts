/**
 * Agent definition files as a hostile repository might write them, and the precedence between
 * models.yaml, the project and the user: each refusal names the file (and line) and what was expected.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultsSchema, type AgentEntry, type Config } from '../../src/config/schema.js';
import { findAgent } from '../../src/agents/find-agent.js';
import { MAX_AGENT_FILE_BYTES, MAX_AGENT_FILES } from '../../src/agents/agent-files.js';
import { listAgents } from '../../src/agents/agent-listing.js';
import { agentModelChoice } from '../../src/agents/agent-model.js';
import { agentLimits } from '../../src/jobs/session/agent-job.js';

const config = (agents: AgentEntry[] = [], model?: string): Config => ({
  path: '/etc/localagents/models.yaml',
  sidecarPath: '/dev/null',
  endpoints: [],
  models: [],
  agents,
  defaults: defaultsSchema.parse(model === undefined ? {} : { model }),
});

function world(): { project: string; agents: string; user: string; env: Record<string, string> } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'la-agents-')));
  const project = join(root, 'repo');
  const agents = join(project, '.claude', 'agents');
  const user = join(root, 'claude-config');
  mkdirSync(agents, { recursive: true });
  mkdirSync(join(user, 'agents'), { recursive: true });
  return { project, agents, user, env: { CLAUDE_CONFIG_DIR: user, HOME: root } };
}

const definition = (name: string, extra = '', prompt = `${name} prompt`): string => `---\nname: ${name}\ndescription: ${name} does things\n${extra}---\n${prompt}\n`;

describe('agent definition files', () => {
  it('a file over the byte limit is refused, naming the file and the limit', async () => {
    const w = world();
    writeFileSync(join(w.agents, 'huge.md'), definition('huge', '', 'x'.repeat(MAX_AGENT_FILE_BYTES)));
    await expect(findAgent({ config: config(), cwd: w.project, env: w.env }, 'huge')).rejects.toThrow(`${join(w.agents, 'huge.md')} is larger than the ${MAX_AGENT_FILE_BYTES} bytes an agent definition may have; not read`);
  });

  it('invalid front matter is refused with the line; a missing key and a bad value name theirs', async () => {
    const w = world();
    writeFileSync(join(w.agents, 'a.md'), '---\nname: a\ndescription: ok\ntools: [Read\n---\nprompt\n');
    writeFileSync(join(w.agents, 'b.md'), '---\nname: b\n---\nprompt\n');
    writeFileSync(join(w.agents, 'c.md'), '---\nname: c\ndescription: ok\n\nmaxTurns: lots\n---\nprompt\n');
    writeFileSync(join(w.agents, 'd.md'), 'name: d\nno front matter\n');
    const search = { config: config(), cwd: w.project, env: w.env };
    await expect(findAgent(search, 'a')).rejects.toThrow(new RegExp(`^${join(w.agents, 'a.md')}:\\d: invalid front matter`));
    await expect(findAgent(search, 'b')).rejects.toThrow(`${join(w.agents, 'b.md')}:2: description: required key is missing`);
    await expect(findAgent(search, 'c')).rejects.toThrow(`${join(w.agents, 'c.md')}:5: maxTurns: expected a whole number of at least 1`);
    await expect(findAgent(search, 'd')).rejects.toThrow(`${join(w.agents, 'd.md')}:1: an agent definition starts with a --- line`);
  });

  it('a link out of the project is not followed; a link inside it is', async () => {
    const w = world();
    const outside = join(w.user, 'secret.md');
    writeFileSync(outside, definition('leak'));
    symlinkSync(outside, join(w.agents, 'leak.md'));
    writeFileSync(join(w.project, 'shared.md'), definition('shared'));
    symlinkSync(join(w.project, 'shared.md'), join(w.agents, 'shared.md'));
    const search = { config: config(), cwd: w.project, env: w.env };
    await expect(findAgent(search, 'leak')).rejects.toThrow(`${join(w.agents, 'leak.md')} is a link to ${outside}, outside the project`);
    expect((await findAgent(search, 'shared')).agent).toMatchObject({ name: 'shared', source: 'project', prompt: 'shared prompt' });
  });

  it('a .claude/agents folder that is itself a link out of the project is refused', async () => {
    const w = world();
    const elsewhere = join(w.user, 'agents');
    writeFileSync(join(elsewhere, 'mine.md'), definition('mine'));
    const repo = join(w.project, '..', 'repo2');
    mkdirSync(join(repo, '.claude'), { recursive: true });
    symlinkSync(elsewhere, join(repo, '.claude', 'agents'));
    const listing = await listAgents({ config: config(), cwd: repo, env: {} });
    expect(listing.agents).toEqual([]);
    expect(listing.agent_problems[0]).toContain(`${join(repo, '.claude', 'agents')} leads to ${elsewhere}, outside the project; not followed`);
  });

  it("tools naming localagents' own MCP tools are refused with the line", async () => {
    const w = world();
    writeFileSync(join(w.agents, 'boss.md'), definition('boss', 'tools: Read, mcp__localagents__run_agent\n'));
    await expect(findAgent({ config: config(), cwd: w.project, env: w.env }, 'boss')).rejects.toThrow(
      `${join(w.agents, 'boss.md')}:4: tools: mcp__localagents__run_agent is one of localagents' own tools`,
    );
  });

  it('reads at most MAX_AGENT_FILES files of a folder', async () => {
    const w = world();
    for (let i = 0; i <= MAX_AGENT_FILES; i += 1) writeFileSync(join(w.agents, `a${String(i).padStart(4, '0')}.md`), definition(`a${String(i).padStart(4, '0')}`));
    const listing = await listAgents({ config: config(), cwd: w.project, env: {} });
    expect(listing.agents).toHaveLength(MAX_AGENT_FILES);
  });
});

describe('which definition a name means', () => {
  it("models.yaml's definition ranks above the project's, the project's above the user's", async () => {
    const w = world();
    writeFileSync(join(w.agents, 'x.md'), definition('x', '', 'project x'));
    writeFileSync(join(w.user, 'agents', 'x.md'), definition('x', '', 'user x'));
    writeFileSync(join(w.user, 'agents', 'y.md'), definition('y', '', 'user y'));
    const inline: AgentEntry = { name: 'y', prompt: 'yaml y', description: 'from models.yaml' };
    const search = { config: config([inline]), cwd: w.project, env: w.env };
    expect((await findAgent(search, 'x')).agent).toMatchObject({ source: 'project', prompt: 'project x' });
    expect((await findAgent(search, 'y')).agent).toMatchObject({ source: 'models.yaml', prompt: 'yaml y', file: '/etc/localagents/models.yaml' });
  });

  it("a broken project file is refused rather than falling back to the user's file of that name", async () => {
    const w = world();
    writeFileSync(join(w.agents, 'x.md'), '---\nname: x\n---\n');
    writeFileSync(join(w.user, 'agents', 'x.md'), definition('x'));
    await expect(findAgent({ config: config(), cwd: w.project, env: w.env }, 'x')).rejects.toThrow(`${join(w.agents, 'x.md')}:2: description: required key is missing`);
  });

  it('an unknown name is refused naming the agents that exist, and where definitions live when none do', async () => {
    const w = world();
    writeFileSync(join(w.agents, 'one.md'), definition('one'));
    writeFileSync(join(w.user, 'agents', 'two.md'), definition('two'));
    await expect(findAgent({ config: config(), cwd: w.project, env: w.env }, 'three')).rejects.toThrow('no agent named "three"; agents: one, two');
    const empty = world();
    await expect(findAgent({ config: config(), cwd: empty.project, env: {} }, 'three')).rejects.toMatchObject({
      message: 'no agent named "three"; none are defined',
      hint: `Agent definitions live in ${empty.agents} or under agents: in models.yaml.`,
    });
  });
});

describe('the model and limits of an agent job', () => {
  it("maps Anthropic names through models.yaml and keeps a local model's name", () => {
    const defaults = { model: 'qwen' };
    expect(agentModelChoice({ name: 'a', model: 'sonnet' }, undefined, defaults)).toMatchObject({ model: 'qwen', from: "defaults.model (the definition's model: sonnet is an Anthropic name)" });
    expect(agentModelChoice({ name: 'a', model: 'claude-opus-4-1' }, { name: 'a', model: 'glm', endpoint: 'rack' }, defaults)).toEqual({ model: 'glm', endpoint: 'rack', from: 'agents.a.model in models.yaml' });
    expect(agentModelChoice({ name: 'a', model: 'qwen3.8-27b' }, undefined, defaults)).toMatchObject({ model: 'qwen3.8-27b', from: "the definition's model:" });
  });

  it('a narrower permission mode and fewer turns apply; sub-agents never, even where models.yaml allows them', () => {
    const agent = { name: 'a', description: 'd', prompt: 'p', permissionMode: 'plan' as const, maxTurns: 5, tools: ['Read', 'Agent', 'Bash(npm test:*)'], notApplied: [], source: 'project' as const, file: 'a.md', sha256: '0' };
    const limits = agentLimits(agent, 'defaults.model', { allowedTools: ['Read', 'Bash', 'Agent'], disallowedTools: [], permissionMode: 'acceptEdits', maxTurns: 200 });
    expect(limits).toMatchObject({ permissionMode: 'plan', maxTurns: 5, allowedTools: ['Read', 'Bash(npm test:*)'], agent: { tools: ['Read', 'Bash'] } });
    expect(limits.disallowedTools).toEqual(expect.arrayContaining(['Agent', 'Task']));
    expect(limits.warnings).toEqual(['a.md: tools Agent not granted: the job allows only Read, Bash, and never sub-agents']);
  });
});
