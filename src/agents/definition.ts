/**
 * One Claude Code agent definition file (`.claude/agents/<name>.md`): YAML
 * front matter between `---` lines, then the system prompt. Checked here, so a
 * bad file is refused naming its line, and only the fields localagents applies
 * leave this module; every other key is named in `notApplied`.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { PERMISSION_MODES, type PermissionMode } from '../config/schema.js';
import { parseYamlSource, type YamlSource } from '../config/yaml-source.js';
import type { KeyPath } from '../config/format-issues.js';

export type AgentSource = 'models.yaml' | 'project' | 'user';

export interface AgentDefinition {
  readonly name: string;
  readonly description: string;
  readonly prompt: string;
  /** Absent: every tool the job allows. */
  readonly tools?: readonly string[] | undefined;
  readonly disallowedTools?: readonly string[] | undefined;
  readonly model?: string | undefined;
  readonly maxTurns?: number | undefined;
  readonly skills?: readonly string[] | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  /** Keys of the file that a local job does not apply (hooks, mcpServers, memory…). */
  readonly notApplied: readonly string[];
}

export interface FoundAgent extends AgentDefinition {
  readonly source: AgentSource;
  /** The file that defines it (models.yaml for an inline definition). */
  readonly file: string;
  /** sha256 of the file's bytes (of the entry, for models.yaml), so the record says which version ran. */
  readonly sha256: string;
}

/** Names as Claude Code writes them (lowercase and hyphens), a little wider, never a path. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
/** Keys a local job applies; `color` is the terminal's, and quietly ignored. */
/** localagents' own MCP tools (`mcp__localagents__run_agent`): a job never starts or steers jobs. */
const OWN_TOOL = /^mcp__.*localagents/i;
const APPLIED = new Set(['name', 'description', 'tools', 'disallowedTools', 'model', 'maxTurns', 'skills', 'permissionMode', 'color']);

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** `Read, Grep, Bash(git diff:*)` or a YAML list: commas inside parentheses belong to the rule. */
function splitTools(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

interface FieldReader {
  readonly data: Record<string, unknown>;
  fail(key: string, message: string): never;
}

function toolList(r: FieldReader, key: string): string[] | undefined {
  const value = r.data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return splitTools(value);
  if (Array.isArray(value) && value.every((t) => typeof t === 'string')) return value.map((t) => t.trim()).filter((t) => t !== '');
  return r.fail(key, 'expected a comma-separated string or a list of tool names');
}

function optionalString(r: FieldReader, key: string): string | undefined {
  const value = r.data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') return r.fail(key, 'expected a non-empty string');
  return value.trim();
}

function readFields(r: FieldReader, prompt: string): AgentDefinition {
  const name = optionalString(r, 'name') ?? r.fail('name', 'required key is missing — the agent\'s name, e.g. name: test-writer');
  if (!AGENT_NAME.test(name)) r.fail('name', `"${name.slice(0, 80)}" is not an agent name: letters, digits, "-", "_", ".", ":" (at most 64)`);
  const description = optionalString(r, 'description') ?? r.fail('description', 'required key is missing — say in one line when to use the agent');
  const maxTurns = r.data.maxTurns;
  if (maxTurns !== undefined && (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns) || maxTurns < 1)) r.fail('maxTurns', 'expected a whole number of at least 1');
  const permissionMode = optionalString(r, 'permissionMode');
  if (permissionMode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(permissionMode)) r.fail('permissionMode', `expected one of ${PERMISSION_MODES.join(', ')}`);
  if (prompt === '') r.fail('', 'the file has no system prompt after the front matter');
  const tools = toolList(r, 'tools');
  const own = tools?.find((t) => OWN_TOOL.test(t));
  if (own !== undefined) r.fail('tools', `${own.slice(0, 100)} is one of localagents' own tools; a local job never starts or steers jobs — remove it`);
  return {
    name,
    description,
    prompt,
    tools,
    disallowedTools: toolList(r, 'disallowedTools'),
    model: optionalString(r, 'model'),
    maxTurns: maxTurns,
    skills: toolList(r, 'skills'),
    permissionMode: permissionMode as PermissionMode | undefined,
    notApplied: Object.keys(r.data).filter((k) => !APPLIED.has(k)),
  };
}

/** The definition in `text`; a ConfigError naming `file` and the line otherwise. */
export function parseAgentText(file: string, text: string): AgentDefinition {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines[0]?.trimEnd() !== '---') throw new ConfigError(file, `${file}:1: an agent definition starts with a --- line, then its front matter (name:, description:)`, { line: 1 });
  const close = lines.findIndex((l, i) => i > 0 && l.trimEnd() === '---');
  if (close === -1) throw new ConfigError(file, `${file}:1: the front matter opened here has no closing --- line`, { line: 1 });
  const source: YamlSource = parseYamlSource(file, lines.slice(1, close).join('\n'));
  const shift = (line: number | undefined): number => (line ?? 1) + 1; // the front matter starts on line 2
  const first = source.issues[0];
  if (first !== undefined) throw new ConfigError(file, `${file}:${shift(first.line)}: invalid front matter: ${first.message}`, { line: shift(first.line) });
  const data = source.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(file, `${file}:2: the front matter must be a mapping (name:, description:, tools:…)`, { line: 2 });
  }
  const reader: FieldReader = {
    data: data as Record<string, unknown>,
    fail(key, message) {
      const path: KeyPath = key === '' ? [] : [key];
      const line = key === '' ? close + 2 : shift(source.lineAt(path));
      throw new ConfigError(file, `${file}:${line}: ${key === '' ? '' : `${key}: `}${message}`, { line, ...(key === '' ? {} : { key }) });
    },
  };
  return readFields(reader, lines.slice(close + 1).join('\n').trim());
}
