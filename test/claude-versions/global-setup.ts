/**
 * Vitest global setup of the Claude Code version matrix: every tested release (src/jobs/claude/claude-code-range.ts),
 * fetched into the cache on first use, handed to the test files through provide/inject. LOCALAGENTS_CLAUDE_VERSIONS
 * (comma-separated) runs the set on other releases instead, as when looking for the oldest one that works.
 */
import type { TestProject } from 'vitest/node';
import { TESTED_CLAUDE_CODE } from '../../src/jobs/claude/claude-code-range.js';
import { ensureClaudeCode } from './fetch-claude-code.js';

export interface ClaudeCodeUnderTest {
  readonly version: string;
  readonly path: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    claudeCodes: ClaudeCodeUnderTest[];
  }
}

export default function setup(project: TestProject): void {
  const chosen = process.env.LOCALAGENTS_CLAUDE_VERSIONS?.split(',').map((v) => v.trim()).filter(Boolean);
  const versions = chosen !== undefined && chosen.length > 0 ? chosen : [...TESTED_CLAUDE_CODE];
  project.provide('claudeCodes', versions.map((version) => ({ version, path: ensureClaudeCode(version) })));
}
