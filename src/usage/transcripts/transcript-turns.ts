/**
 * One caller transcript read into turns: every assistant message (one API request
 * of the caller) with its model, its usage as Claude Code recorded it and the ids of
 * its tool_use blocks, and where each tool result was read back. Claude Code writes
 * a message's content blocks as several lines sharing its `message.id`, each with
 * the usage; the last line's is kept, once. Subagent (sidechain) lines are not the
 * caller's own turns. Bounded: a line over {@link MAX_LINE_BYTES} or a line that is
 * not JSON is skipped and counted; no more than {@link MAX_FILE_BYTES} of a file is read.
 */
import { openRegularFile } from '../../coord/regular-file.js';
import { forEachLineOf } from '../jsonl-lines.js';
import { refusal } from './transcript-files.js';

/** A transcript line holding a pasted file or a long tool result can be large; beyond this it is skipped. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A caller turn's tokens, as the API billed them. */
export interface CallerTokens {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
}

export interface CallerTurn {
  readonly messageId: string;
  /** The caller's model as the transcript names it. */
  model: string;
  tokens: CallerTokens;
  readonly toolUses: { readonly id: string; readonly name: string }[];
  /** The turn's first line, counted from the file's start. */
  readonly at: number;
}

export interface TranscriptScan {
  readonly file: string;
  /** In the order they began. */
  readonly turns: readonly CallerTurn[];
  /** Where the result of each tool_use was read back: the line's number. */
  readonly resultAt: ReadonlyMap<string, number>;
  /** Lines skipped, by reason; empty when every line was read. */
  readonly skipped: readonly string[];
}

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj | undefined => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Obj) : undefined);
const count = (x: unknown): number => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);

function tokensOf(usage: Obj): CallerTokens {
  const creation = count(usage.cache_creation_input_tokens);
  const split = obj(usage.cache_creation);
  const oneHour = split === undefined ? 0 : count(split.ephemeral_1h_input_tokens);
  // Without the split, Claude Code's default: the 5-minute cache.
  return { input: count(usage.input_tokens), cacheRead: count(usage.cache_read_input_tokens), cacheWrite5m: Math.max(0, creation - oneHour), cacheWrite1h: oneHour, output: count(usage.output_tokens) };
}

interface Builder {
  readonly turns: Map<string, CallerTurn>;
  readonly resultAt: Map<string, number>;
}

function addLine(line: Obj, at: number, into: Builder): void {
  if (line.isSidechain === true) return;
  const message = obj(line.message);
  const content = Array.isArray(message?.content) ? (message.content as unknown[]) : [];
  if (line.type === 'user') {
    for (const block of content) {
      const b = obj(block);
      if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string') into.resultAt.set(b.tool_use_id, at);
    }
    return;
  }
  if (line.type !== 'assistant' || message === undefined || typeof message.id !== 'string') return;
  let turn = into.turns.get(message.id);
  if (turn === undefined) into.turns.set(message.id, (turn = { messageId: message.id, model: '', tokens: tokensOf({}), toolUses: [], at }));
  if (typeof message.model === 'string') turn.model = message.model;
  const usage = obj(message.usage);
  if (usage !== undefined) turn.tokens = tokensOf(usage);
  for (const block of content) {
    const b = obj(block);
    if (b?.type === 'tool_use' && typeof b.id === 'string' && !turn.toolUses.some((u) => u.id === b.id)) turn.toolUses.push({ id: b.id, name: typeof b.name === 'string' ? b.name : '' });
  }
}

/** The file's turns; a file that cannot be opened as a regular file of this user throws, with the reason. */
export async function scanTranscript(file: string): Promise<TranscriptScan> {
  const handle = await openRegularFile(file);
  const into: Builder = { turns: new Map(), resultAt: new Map() };
  let invalid = 0;
  let at = 0;
  try {
    // Checked again on the open file: the entry may have been swapped since it was listed.
    const info = await handle.stat();
    const why = refusal(info);
    if (why !== undefined) throw new Error(`${file} is ${why}`);
    const visit = await forEachLineOf(handle, MAX_LINE_BYTES, MAX_FILE_BYTES, (text) => {
      at++;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        invalid++;
        return;
      }
      const line = obj(parsed);
      if (line === undefined) invalid++;
      else addLine(line, at, into);
    });
    const skipped = [
      ...(visit.tooLong > 0 ? [`${visit.tooLong} line(s) over ${MAX_LINE_BYTES} bytes`] : []),
      ...(invalid > 0 ? [`${invalid} line(s) not JSON`] : []),
      ...(info.size > MAX_FILE_BYTES ? [`only the first ${MAX_FILE_BYTES} of ${info.size} bytes read`] : []),
    ];
    return { file, turns: [...into.turns.values()], resultAt: into.resultAt, skipped };
  } finally {
    await handle.close();
  }
}
