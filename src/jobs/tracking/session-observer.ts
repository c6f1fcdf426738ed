/**
 * Reads the SDK's message stream of one session and keeps what a reviewer
 * needs: counters and files touched for the record, one readable line per
 * event for transcript.txt. Knows Claude Code's message shapes, nothing else.
 */
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const THINKING_PREVIEW = 400;
const RESULT_PREVIEW = 600;

export interface SessionProgress {
  sessionId: string | undefined;
  numTurns: number;
  toolCalls: number;
  filesTouched: string[];
  lastActivity: { at: string; what: string } | undefined;
  result: string | undefined;
  /** Set when the session ended in an error result (is_error), with the reason. */
  error: string | undefined;
  finished: boolean;
  /** The SDK yields one message per content block; a new message id is a new model turn. */
  lastMessageId: string | undefined;
}

export function newProgress(): SessionProgress {
  return {
    sessionId: undefined,
    numTurns: 0,
    toolCalls: 0,
    filesTouched: [],
    lastActivity: undefined,
    result: undefined,
    error: undefined,
    finished: false,
    lastMessageId: undefined,
  };
}

interface Block {
  type?: string;
  text?: string;
  thinking?: string;
  name?: string;
  input?: unknown;
  content?: unknown;
  is_error?: boolean;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function toolSummary(name: string, input: unknown): string {
  if (input === null || typeof input !== 'object') return name;
  const i = input as Record<string, unknown>;
  const arg = i.command ?? i.file_path ?? i.notebook_path ?? i.pattern ?? i.path ?? i.url;
  return typeof arg === 'string' ? `${name} ${clip(arg, 200)}` : `${name} ${clip(JSON.stringify(input), 200)}`;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c: Block) => (typeof c.text === 'string' ? c.text : `[${c.type ?? 'block'}]`)).join(' ');
  }
  return '';
}

/** Updates `progress` from one SDK message and returns the transcript lines it produced. */
export function observe(progress: SessionProgress, message: SDKMessage, now: Date = new Date()): string[] {
  const lines: string[] = [];
  const stamp = now.toISOString().slice(11, 19);
  const activity = (what: string): void => {
    progress.lastActivity = { at: now.toISOString(), what };
  };
  if ('session_id' in message && typeof message.session_id === 'string' && message.session_id) progress.sessionId = message.session_id;

  switch (message.type) {
    case 'assistant': {
      if (message.message.id !== progress.lastMessageId) {
        progress.lastMessageId = message.message.id;
        progress.numTurns++;
      }
      const content = (message.message.content ?? []) as Block[];
      for (const block of content) {
        if (block.type === 'text' && block.text) {
          lines.push(`${stamp} assistant: ${block.text.trim()}`);
          activity('wrote text');
        } else if (block.type === 'thinking' && block.thinking) {
          lines.push(`${stamp} thinking: ${clip(block.thinking, THINKING_PREVIEW)}`);
          activity('thinking');
        } else if (block.type === 'tool_use' && block.name) {
          progress.toolCalls++;
          const summary = toolSummary(block.name, block.input);
          lines.push(`${stamp} tool: ${summary}`);
          activity(summary);
          const path = (block.input as { file_path?: unknown; notebook_path?: unknown } | undefined);
          const file = path?.file_path ?? path?.notebook_path;
          if (FILE_TOOLS.has(block.name) && typeof file === 'string' && !progress.filesTouched.includes(file)) progress.filesTouched.push(file);
        }
      }
      if (message.error) lines.push(`${stamp} backend error: ${message.error}`);
      break;
    }
    case 'user': {
      const content = message.message.content;
      if (Array.isArray(content)) {
        for (const block of content as Block[]) {
          if (block.type === 'tool_result') {
            lines.push(`${stamp} ${block.is_error ? 'tool error' : 'result'}: ${clip(resultText(block.content), RESULT_PREVIEW)}`);
          }
        }
      }
      break;
    }
    case 'system': {
      if (message.subtype === 'init') lines.push(`${stamp} session ${message.session_id} started (Claude Code ${message.claude_code_version}, model ${message.model})`);
      else if (message.subtype === 'api_retry') {
        const line = `backend error: HTTP ${message.error_status ?? 'none'} (${message.error}), retry ${message.attempt}/${message.max_retries} in ${Math.round(message.retry_delay_ms)} ms`;
        lines.push(`${stamp} ${line}`);
        activity(line);
      } else if (message.subtype === 'compact_boundary') {
        lines.push(`${stamp} context compacted`);
        activity('compacted the conversation');
      }
      break;
    }
    case 'result': {
      progress.finished = true;
      progress.numTurns = message.num_turns;
      if (message.subtype === 'success' && !message.is_error) {
        progress.result = message.result;
        lines.push(`${stamp} done after ${message.num_turns} turns: ${clip(message.result, RESULT_PREVIEW)}`);
      } else {
        const reason = message.subtype === 'success' ? message.result : [message.subtype, ...message.errors].join(': ');
        progress.error = reason;
        lines.push(`${stamp} failed after ${message.num_turns} turns: ${reason}`);
      }
      break;
    }
    default:
      break;
  }
  return lines;
}
