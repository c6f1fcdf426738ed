/**
 * The Claude Code releases localagents is tested with: the one place the range lives. `doctor` checks the
 * Claude Code it would use against it, the version matrix (`npm run test:claude-versions`) runs the core
 * end-to-end set on each tested release, and a test holds the README to the same words.
 *
 * Found by running that set on released versions (test/claude-versions/README.md lists each one tried):
 * - before 1.0.126 the CLI refuses `--setting-sources`, which the Agent SDK passes on every start;
 * - from 1.0.126 jobs run, through the shim and under the pinned `--settings` flag layer;
 * - before 2.1.153 Claude Code neither honours CLAUDE_CODE_MAX_CONTEXT_TOKENS nor compacts when the server says
 *   "prompt is too long": a job whose conversation outgrows the model's window fails instead of compacting;
 * - before 2.1.83 Claude Code ignores `sandbox.failIfUnavailable`: with a missing bubblewrap it only warns and runs
 *   Bash unsandboxed, so a sandboxed job refuses to start on it (src/jobs/sandbox/preflight.ts).
 */

/** Tested releases, oldest first: the oldest supported, the oldest 2.0.x, the first that compacts, the SDK's own. */
export const TESTED_CLAUDE_CODE: readonly string[] = ['1.0.126', '2.0.0', '2.1.153', '2.1.332'];

export const OLDEST_SUPPORTED = '1.0.126';
export const NEWEST_TESTED = '2.1.332';
/** The first release that compacts a conversation that outgrew the model's window. */
export const COMPACTS_FROM = '2.1.153';
/** The first release that reads `sandbox.failIfUnavailable` (its changelog): the oldest a sandboxed job runs on. */
export const SANDBOX_FROM = '2.1.83';

/** `x.y.z` from what `claude --version` prints ("2.1.332 (Claude Code)"). */
export function parseClaudeVersion(text: string): string | undefined {
  return /(?:^|\s)v?(\d+\.\d+\.\d+)(?=$|[\s(-])/.exec(text)?.[1];
}

/** Numeric comparison of `x.y.z` versions: negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function compactsOnOverflow(version: string): boolean {
  return compareVersions(version, COMPACTS_FROM) >= 0;
}

export function sandboxesSafely(version: string): boolean {
  return compareVersions(version, SANDBOX_FROM) >= 0;
}

/** The tested range in words, as the README states it. */
export function testedRangeText(): string {
  return `Claude Code ${OLDEST_SUPPORTED} to ${NEWEST_TESTED} (tested: ${TESTED_CLAUDE_CODE.join(', ')}; compaction on overflow from ${COMPACTS_FROM}; the sandbox from ${SANDBOX_FROM})`;
}

export type RangePlace = 'inside' | 'no-compaction' | 'older' | 'newer' | 'unknown';

export interface RangeVerdict {
  readonly place: RangePlace;
  /** Jobs cannot start on it at all. */
  readonly unusable: boolean;
  /** One sentence for a person; empty when the version is inside the range with nothing to say. */
  readonly warning: string;
}

/** Where `versionText` (the output of `claude --version`) falls against the tested range. */
export function checkClaudeCodeVersion(versionText: string): RangeVerdict {
  const version = parseClaudeVersion(versionText);
  const tested = `localagents is tested with ${testedRangeText()}`;
  if (version === undefined) return { place: 'unknown', unusable: false, warning: `cannot read a version in "${versionText.slice(0, 80)}"; ${tested}` };
  if (compareVersions(version, OLDEST_SUPPORTED) < 0) {
    return { place: 'older', unusable: true, warning: `Claude Code ${version} is older than the oldest supported release: it refuses flags the Agent SDK passes (--setting-sources), so no job starts; ${tested}. Update Claude Code, or set defaults.claude_code_path to a tested one` };
  }
  if (compareVersions(version, NEWEST_TESTED) > 0) {
    return { place: 'newer', unusable: false, warning: `Claude Code ${version} is newer than the newest tested release; it probably works, but ${tested}` };
  }
  if (!compactsOnOverflow(version)) {
    return { place: 'no-compaction', unusable: false, warning: `Claude Code ${version} does not compact when a conversation outgrows the model's window: a long job fails with "Prompt is too long" (from ${COMPACTS_FROM} it compacts and goes on); ${tested}` };
  }
  return { place: 'inside', unusable: false, warning: '' };
}

/** Doctor's line for the Claude Code it would use: its version, where it is, whether it is inside the tested range. */
export function claudeCodeCheck(versionText: string, where: string): { ok: boolean; detail: string; fixes: string[] } {
  const verdict = checkClaudeCodeVersion(versionText);
  const range = verdict.place === 'inside' || verdict.place === 'no-compaction' ? 'inside the tested range' : 'outside the tested range';
  return { ok: !verdict.unusable, detail: `${versionText} at ${where}, ${range} (${OLDEST_SUPPORTED} to ${NEWEST_TESTED})`, fixes: verdict.warning === '' ? [] : [verdict.warning] };
}
