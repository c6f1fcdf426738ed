/**
 * For a model server without vision: every `image` block, in a message or
 * inside a `tool_result`, becomes a short text block saying what was there.
 * Owns only image blocks.
 *
 * Why: llama-server without an mmproj answers HTTP 500 "image input is not
 * supported" to any request holding an image (server-common.cpp, measured on
 * de3ff815), and the image stays in Claude Code's history, so one `Read
 * screenshot.png` ends the session. The note is a pure function of the block
 * and the file name Claude Code's Read call gave (no time, no counter), so the
 * same image gives the same bytes on every turn and the server's prompt cache
 * keeps the prefix.
 */
import { imageSize, IMAGE_HEADER_BYTES } from './image-header.js';
import { visitMessageBlocks, type BlockPlace } from './content-blocks.js';
import { isRecord, type JsonRecord } from '../json/json-shape.js';
import { base64ByteLength, base64Prefix, base64Source, contentKey, sizeInWords } from './media-source.js';

/** One block a media rule replaced, for requests.jsonl and the job record. */
export interface MediaReplacement {
  readonly kind: 'image' | 'document';
  /** contentKey() of the bytes (or of the URL for a url source). */
  readonly key: string;
  /** described: a note in its place; extracted: its text in its place; failed: a note saying why there is no text. */
  readonly outcome: 'described' | 'extracted' | 'failed';
  /** Why extraction failed, in a few words. */
  readonly reason?: string | undefined;
}

export interface ImagesAsTextResult {
  readonly messages: readonly unknown[];
  readonly replaced: readonly MediaReplacement[];
}

const CANNOT_SEE = 'not shown: this model server cannot see images, so localagents put this note in its place';

/** The note for one image block (exported for the tests that check what the model reads). */
export function imageNote(block: JsonRecord, place: BlockPlace): { text: string; key: string } {
  const name = place.filePath === undefined ? '' : ` ${place.filePath}`;
  const source = base64Source(block);
  if (source !== undefined) {
    const size = imageSize(base64Prefix(source.data, IMAGE_HEADER_BYTES));
    const facts = [source.mediaType ?? 'unknown type', size && `${size.width}×${size.height} px`, sizeInWords(base64ByteLength(source.data))].filter(Boolean).join(', ');
    return { text: `[image${name} (${facts}): ${CANNOT_SEE}]`, key: contentKey(source.data) };
  }
  const url = isRecord(block.source) && typeof block.source.url === 'string' ? block.source.url : undefined;
  if (url !== undefined) return { text: `[image${name} at ${url}: ${CANNOT_SEE}]`, key: contentKey(url) };
  return { text: `[image${name}: ${CANNOT_SEE}]`, key: contentKey(JSON.stringify(block.source ?? null)) };
}

/** `messages` with every image block replaced by its note; the same array when there is none. */
export function imagesAsText(messages: readonly unknown[]): ImagesAsTextResult {
  const replaced: MediaReplacement[] = [];
  const out = visitMessageBlocks(messages, (block, place) => {
    if (block.type !== 'image') return block;
    const note = imageNote(block, place);
    replaced.push({ kind: 'image', key: note.key, outcome: 'described' });
    return { type: 'text', text: note.text };
  });
  return { messages: out, replaced };
}
