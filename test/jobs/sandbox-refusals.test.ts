/**
 * The refusal counter reads untrusted tool output: Claude Code's own
 * `<sandbox_violations>` lines (captured from 2.1.332, docs/sandbox.md) and the
 * errors a refused write or read prints. Hostile output (an endless run of
 * opening tags) is read in linear time.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { newTally, watchRefusals } from '../../src/jobs/sandbox/refusals.js';

function toolResult(content: string): SDKMessage {
  return { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content }] }, parent_tool_use_id: null, session_id: 's' };
}

describe('sandbox refusals in tool results', () => {
  it('counts each line of Claude Code\'s block as a reported violation, and each refused write or read', () => {
    const tally = newTally();
    // As Claude Code 2.1.332 answered a Bash call (measured): a blocked host, then a refused write.
    const captured = 'curl: (56) CONNECT tunnel failed, response 403\n000\nrc-example=56\n<sandbox_violations>\ndeny network-outbound example.com:443 (host is not on the allow list)\n</sandbox_violations>';
    const lines = [...watchRefusals(tally, toolResult(captured)), ...watchRefusals(tally, toolResult('./probe.sh: 2: cannot create /root/outside.txt: Read-only file system\nrc-home=2'))];
    expect(lines).toEqual([
      'sandbox refused: deny network-outbound example.com:443 (host is not on the allow list) (reported by Claude Code)',
      'sandbox refused: ./probe.sh: 2: cannot create /root/outside.txt: Read-only file system',
    ]);
    expect(tally).toEqual({ refusals: 2, violations: 1 });
  });

  it('ignores what the model wrote and ordinary output', () => {
    const tally = newTally();
    const assistant = { type: 'assistant', message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: 'Read-only file system' }] }, parent_tool_use_id: null, session_id: 's' } as unknown as SDKMessage;
    expect([...watchRefusals(tally, assistant), ...watchRefusals(tally, toolResult('all tests pass'))]).toEqual([]);
    expect(tally).toEqual({ refusals: 0, violations: 0 });
  });

  // A scan that backtracks over 2 MB of unclosed tags takes minutes (100,000² steps); a linear one, milliseconds.
  // The test's own time limit catches the first: no wall-clock assertion to flake on a loaded machine.
  it('reads 2 MB of unclosed tags in linear time', { timeout: 10_000 }, () => {
    const tally = newTally();
    const hostile = '<sandbox_violations>'.repeat(100_000);
    watchRefusals(tally, toolResult(hostile));
    expect(tally.violations).toBe(0);
  });
});
