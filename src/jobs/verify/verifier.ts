/**
 * A job's verify command from its first check to its verdict. Claude Code
 * calls the Stop hook when the model is about to end the session: the check
 * runs, and a failure goes back to the model as the reason to go on (the
 * hook's "block"), until the check passes or the attempts are used up. The
 * hook is an in-process callback of the Agent SDK, so no settings file can
 * replace it; `disableAllHooks: false` is pinned in the flag layer, because
 * Claude Code before 2.1 lets a repository's `disableAllHooks: true` drop SDK
 * callbacks too (measured on 1.0.126 and 2.0.0; 2.1.153 and 2.1.332 keep them).
 * Should the hook never run all the same, the check runs once after the session.
 */
import type { HookCallbackMatcher, HookEvent } from '@anthropic-ai/claude-agent-sdk';
import { redactSecrets } from '../../secrets/redact.js';
import type { JobRecord } from '../record/job-record.js';
import type { FlagSettings } from '../claude/pinned-settings.js';
import { bwrapArgs, hiddenVariables } from './check-sandbox.js';
import type { Spent, Verification, VerifyAttempt } from './record.js';
import { runCheck } from './run-check.js';

export interface VerifyPlan {
  readonly command: string;
  readonly attempts: number;
  readonly timeoutS: number;
}

export interface VerifierInput {
  readonly plan: VerifyPlan;
  /** The session's cwd: the check runs where the model worked. */
  readonly workDir: string;
  /** The session's environment (the check's, less what the sandbox hides from Bash). */
  readonly sessionEnv: Readonly<Record<string, string>>;
  /** The sandbox block pinned for the session; undefined when the sandbox is off. */
  readonly sandbox: FlagSettings['sandbox'] | undefined;
  readonly signal: AbortSignal;
  /** The live record: turns and tokens so far. */
  readonly current: () => JobRecord;
  /** Called after every check, with the record's new verification. */
  readonly onAttempt: (verification: Verification, attempt: VerifyAttempt) => void;
}

export interface Verifier {
  /** The Agent SDK's `hooks` option. */
  readonly hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** Flag-layer settings the hook needs. */
  readonly settings: Pick<FlagSettings, 'disableAllHooks'>;
  /**
   * After the session, whatever ended it: waits for a check still running (Claude Code may have stopped waiting for
   * its hook), and, when the session ended on its own (`finished`) and the hook never ran, checks once.
   */
  afterSession(finished: boolean): Promise<void>;
  record(): Verification;
  /** The job's error when the check never passed; undefined when it passed. */
  failure(): string | undefined;
}

const LATE_NOTE =
  'Claude Code stopped waiting for the Stop hook before the check ended (before 2.1 it cuts every hook at about 60 s, whatever the hook\'s own limit), so the session ended without the result; the last check decided, and the model never saw it';
const NO_HOOK_NOTE = 'Claude Code never called the Stop hook in this session, so the check ran once after it ended, with no chance for the model to fix a failure';

/** The feedback the model reads when its check fails. */
function feedback(plan: VerifyPlan, attempt: VerifyAttempt, n: number): string {
  const why = attempt.timed_out ? `was cut at its time limit of ${plan.timeoutS} s` : `failed with exit status ${attempt.exit_code ?? '(killed by a signal)'}`;
  const left = plan.attempts - n;
  return [
    `The job is not done: its check \`${redactSecrets(plan.command)}\` ${why} (check ${n} of ${plan.attempts}; ${left} left). The end of its output:`,
    attempt.output_tail.trim() === '' ? '(no output)' : attempt.output_tail,
    'Fix the cause and finish again; the check runs again when you stop.',
  ].join('\n');
}

function spentSince(from: JobRecord, to: JobRecord): Spent {
  return {
    turns: to.num_turns - from.num_turns,
    input_tokens: to.usage.input_tokens - from.usage.input_tokens,
    output_tokens: to.usage.output_tokens - from.usage.output_tokens,
    cache_read_input_tokens: to.usage.cache_read_input_tokens - from.usage.cache_read_input_tokens,
  };
}

function sum(spent: readonly Spent[]): Spent | undefined {
  if (spent.length === 0) return undefined;
  return spent.reduce((a, b) => ({
    turns: a.turns + b.turns,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  }));
}

export function createVerifier(input: VerifierInput): Verifier {
  const { plan } = input;
  const attempts: VerifyAttempt[] = [];
  /** The record when each failed check ended: what came after it is the fixing. */
  const afterFailure: JobRecord[] = [];
  /** The record when each check started: where the fixing after the one before ended. */
  const beforeCheck: JobRecord[] = [];
  const notes: string[] = [];
  let hookCalled = false;
  let running: Promise<VerifyAttempt> | undefined;
  const sandboxed = input.sandbox !== undefined;
  if (sandboxed) notes.push('run in a bubblewrap sandbox with the session sandbox\'s file lists and no network');

  const env: Record<string, string> = { ...input.sessionEnv };
  if (input.sandbox !== undefined) for (const name of hiddenVariables(input.sandbox)) delete env[name];
  if (env.CLAUDE_CODE_TMPDIR !== undefined) env.TMPDIR = env.CLAUDE_CODE_TMPDIR; // Bash's private temp folder

  const passed = (): boolean => attempts.at(-1)?.exit_code === 0;
  const record = (): Verification => {
    const now = input.current();
    const withSpent = attempts.map((a, i) => {
      const from = afterFailure[i];
      return from === undefined ? a : { ...a, spent_after: spentSince(from, beforeCheck[i + 1] ?? now) };
    });
    const spent = sum(withSpent.map((a) => a.spent_after).filter((s) => s !== undefined));
    return {
      command: redactSecrets(plan.command),
      passed: passed(),
      max_attempts: plan.attempts,
      timeout_s: plan.timeoutS,
      sandboxed,
      attempts: withSpent,
      ...(spent === undefined ? {} : { spent_after_failures: spent }),
      ...(notes.length > 0 ? { notes: [...notes] } : {}),
    };
  };

  const check = async (): Promise<VerifyAttempt> => {
    const argv = input.sandbox === undefined ? ['/bin/sh', '-c', plan.command] : ['bwrap', ...bwrapArgs(input.sandbox, input.workDir), '/bin/sh', '-c', plan.command];
    beforeCheck.push(input.current());
    const attempt = await runCheck({ argv, cwd: input.workDir, env, timeoutMs: plan.timeoutS * 1000, signal: input.signal });
    attempts.push(attempt);
    if (attempt.exit_code !== 0) afterFailure[attempts.length - 1] = input.current();
    input.onAttempt(record(), attempt);
    return attempt;
  };

  return {
    hooks: {
      Stop: [
        {
          // Claude Code's own limit for a hook: the check's, and a little for the sandbox to start and stop.
          timeout: plan.timeoutS + 30,
          hooks: [
            async () => {
              hookCalled = true;
              if (passed() || attempts.length >= plan.attempts || input.signal.aborted) return {};
              running = check();
              const attempt = await running.finally(() => (running = undefined));
              if (attempt.exit_code === 0 || attempts.length >= plan.attempts) return {};
              return { decision: 'block', reason: feedback(plan, attempt, attempts.length) };
            },
          ],
        },
      ],
    },
    settings: { disableAllHooks: false },
    async afterSession(finished) {
      if (running !== undefined) {
        notes.push(LATE_NOTE);
        await running;
      }
      if (!finished || hookCalled || input.signal.aborted) return;
      notes.push(NO_HOOK_NOTE);
      await check();
    },
    record,
    failure() {
      if (passed()) return undefined;
      const v = record();
      const last = v.attempts.at(-1);
      const command = redactSecrets(plan.command);
      if (last === undefined) return `the verify command \`${command}\` never ran (the session ended before it tried to stop)`;
      const times = v.attempts.length === 1 ? 'once' : `${v.attempts.length} times`;
      const why = last.timed_out ? `cut at its ${plan.timeoutS} s limit` : `exit status ${last.exit_code ?? '(signal)'}`;
      return `the verify command \`${command}\` failed ${times} (of ${plan.attempts} attempts; last: ${why}); last output: ${last.output_tail.trim().slice(-1500) || '(none)'}`;
    },
  };
}
