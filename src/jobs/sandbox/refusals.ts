/**
 * Finds the sandbox's refusals in what a session's tools answered, for the
 * transcript (one line each) and the record (counts). Claude Code 2.1.332 on
 * Linux reports a refused network connection itself, as lines inside a
 * `<sandbox_violations>` block appended to the Bash result ("deny
 * network-outbound example.com:443 (host is not on the allow list)"); a
 * refused write or read shows only as the program's own error (EROFS "Read-only
 * file system", EACCES "Permission denied"), and a file tool's refusal as its
 * error text naming the setting. Those are counted as refusals, the block's
 * lines as violations Claude Code reported.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';

const FS_REFUSAL = /Read-only file system|Permission denied|Operation not permitted|Device or resource busy|blockWritesOutsideWorkingDirectories|denied by your permission settings|keeps off limits to the file tools|which is a sensitive file|^Permission to use \S+ with .* has been denied/;
const OPEN = '<sandbox_violations>';
const CLOSE = '</sandbox_violations>';
const MAX_LINE = 300;

export interface SandboxTally {
  refusals: number;
  violations: number;
}

export function newTally(): SandboxTally {
  return { refusals: 0, violations: 0 };
}

interface Block {
  readonly type?: string;
  readonly text?: string;
  readonly content?: unknown;
}

/** The block's lines and the text around the blocks (indexOf, not a regex: tool output is untrusted and may be long). */
function splitViolations(text: string): { reported: string[]; rest: string } {
  const reported: string[] = [];
  let rest = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf(OPEN, at);
    const close = open < 0 ? -1 : text.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) return { reported, rest: rest + text.slice(at) };
    rest += text.slice(at, open);
    reported.push(...text.slice(open + OPEN.length, close).split('\n').map((l) => l.trim()).filter(Boolean));
    at = close + CLOSE.length;
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Block) => (typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

/** Updates the tally from one message; returns a transcript line per refusal it saw. */
export function watchRefusals(tally: SandboxTally, message: SDKMessage): string[] {
  if (message.type !== 'user' || !Array.isArray(message.message.content)) return [];
  const lines: string[] = [];
  for (const block of message.message.content as Block[]) {
    if (block.type !== 'tool_result') continue;
    const { reported, rest } = splitViolations(textOf(block.content));
    for (const line of reported) {
      tally.violations++;
      tally.refusals++;
      lines.push(`sandbox refused: ${line.slice(0, MAX_LINE)} (reported by Claude Code)`);
    }
    for (const line of rest.split('\n')) {
      if (!FS_REFUSAL.test(line)) continue;
      tally.refusals++;
      lines.push(`sandbox refused: ${line.trim().slice(0, MAX_LINE)}`);
    }
  }
  return lines;
}
