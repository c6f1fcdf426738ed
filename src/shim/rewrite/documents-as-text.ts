/**
 * Every `document` block, in a message or inside a `tool_result`, becomes a
 * text block: a PDF's extracted text (extraction is done beforehand, see
 * shim/body/pdf-text.ts, and handed in by content key), a plain-text document's own
 * text, or a note saying why there is none. Owns only document blocks.
 *
 * Why for every backend, vision or not: llama-server drops a `document` block
 * without a word (server-chat.cpp has no branch for it, de3ff815), so the model
 * believes it read a file it never saw; vLLM rejects the whole request with a
 * 400 validation error (its protocol.py allows no `document` type); Ollama's
 * Messages converter has no branch for it either. The replacement depends only
 * on the block and the extraction outcome for its bytes, which the caller keeps
 * per content key, so every turn carries the same bytes.
 */
import { visitMessageBlocks, type BlockPlace } from './content-blocks.js';
import type { MediaReplacement } from './images-as-text.js';
import { isRecord, isTextBlock, type JsonRecord } from '../json/json-shape.js';
import { base64ByteLength, base64Source, contentKey, sizeInWords } from './media-source.js';

/** What extracting one PDF's text gave. */
export type PdfText =
  | { readonly ok: true; readonly text: string; readonly pages: number; readonly pagesRead: number; readonly truncated: boolean }
  | { readonly ok: false; readonly reason: string };

/** The most text of one document that goes to the model (about 25k tokens): a bigger one is cut with a note. */
export const MAX_DOCUMENT_TEXT = 100_000;

export interface PdfToExtract {
  readonly key: string;
  readonly data: string;
}

export interface DocumentsAsTextResult {
  readonly messages: readonly unknown[];
  readonly replaced: readonly MediaReplacement[];
}

function isPdf(block: JsonRecord): boolean {
  const source = base64Source(block);
  return source !== undefined && (source.mediaType === undefined || source.mediaType === 'application/pdf');
}

/** The base64 PDFs of a conversation, once each, for the caller to extract before documentsAsText(). */
export function pdfsToExtract(messages: readonly unknown[]): PdfToExtract[] {
  const found = new Map<string, string>();
  visitMessageBlocks(messages, (block) => {
    const source = block.type === 'document' && isPdf(block) ? base64Source(block) : undefined;
    if (source !== undefined) found.set(contentKey(source.data), source.data);
    return block;
  });
  return [...found].map(([key, data]) => ({ key, data }));
}

function nameOf(block: JsonRecord, place: BlockPlace): string {
  const title = typeof block.title === 'string' && block.title !== '' ? block.title : place.filePath;
  return title === undefined ? '' : ` ${title}`;
}

/** Text cut to MAX_DOCUMENT_TEXT characters, on a line end where one is near. */
function bounded(text: string): { text: string; cut: boolean } {
  if (text.length <= MAX_DOCUMENT_TEXT) return { text, cut: false };
  const lineEnd = text.lastIndexOf('\n', MAX_DOCUMENT_TEXT);
  return { text: text.slice(0, lineEnd > MAX_DOCUMENT_TEXT * 0.9 ? lineEnd : MAX_DOCUMENT_TEXT), cut: true };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function pdfText(block: JsonRecord, place: BlockPlace, data: string, outcome: PdfText | undefined): { text: string; replaced: MediaReplacement } {
  const key = contentKey(data);
  const head = `PDF${nameOf(block, place)} (${sizeInWords(base64ByteLength(data))}`;
  if (outcome === undefined || !outcome.ok) {
    const reason = outcome?.reason ?? 'not extracted';
    return {
      text: `[${head}): its text could not be extracted (${reason}), and this model server cannot read PDF documents, so the model did not see its content]`,
      replaced: { kind: 'document', key, outcome: 'failed', reason },
    };
  }
  const { text, cut } = bounded(outcome.text);
  const lines = [`[${head}, ${plural(outcome.pages, 'page')}): its text, extracted by localagents because this model server cannot read PDF documents]`, text];
  if (cut || outcome.truncated) {
    lines.push(`[the rest of this PDF is left out: localagents passes at most ${outcome.pagesRead} pages and ${sizeInWords(MAX_DOCUMENT_TEXT)} of its text; read the file in parts with a tool if you need more]`);
  }
  return { text: lines.join('\n'), replaced: { kind: 'document', key, outcome: 'extracted' } };
}

/** A document whose source is text or content blocks: its text, bounded like a PDF's. */
function ownText(block: JsonRecord): string | undefined {
  const source = isRecord(block.source) ? block.source : undefined;
  if (source?.type === 'text' && typeof source.data === 'string') return source.data;
  if (source?.type === 'content' && Array.isArray(source.content)) {
    return (source.content as readonly unknown[]).filter(isTextBlock).map((b) => b.text).join('\n');
  }
  return undefined;
}

/**
 * `messages` with every document block replaced by text; `pdfs` holds the
 * extraction outcome of each base64 PDF by content key (a PDF without one gets
 * the failure note). The same array when there is no document.
 */
export function documentsAsText(messages: readonly unknown[], pdfs: ReadonlyMap<string, PdfText>): DocumentsAsTextResult {
  const replaced: MediaReplacement[] = [];
  const out = visitMessageBlocks(messages, (block, place) => {
    if (block.type !== 'document') return block;
    const source = base64Source(block);
    if (source !== undefined && isPdf(block)) {
      const pdf = pdfText(block, place, source.data, pdfs.get(contentKey(source.data)));
      replaced.push(pdf.replaced);
      return { type: 'text', text: pdf.text };
    }
    const own = ownText(block);
    if (own !== undefined) {
      const { text, cut } = bounded(own);
      replaced.push({ kind: 'document', key: contentKey(own), outcome: 'extracted' });
      const tail = cut ? `\n[the rest of this document is left out: localagents passes at most ${sizeInWords(MAX_DOCUMENT_TEXT)} of it]` : '';
      return { type: 'text', text: `[document${nameOf(block, place)}: its text, passed as plain text because this model server cannot read document blocks]\n${text}${tail}` };
    }
    const what = source?.mediaType ?? (isRecord(block.source) && typeof block.source.url === 'string' ? `at ${block.source.url}` : 'of an unknown kind');
    const reason = `a ${what} document`;
    replaced.push({ kind: 'document', key: contentKey(JSON.stringify(block.source ?? null)), outcome: 'failed', reason });
    return { type: 'text', text: `[document${nameOf(block, place)} (${what}): this model server cannot read document blocks and localagents cannot extract this kind, so the model did not see its content]` };
  });
  return { messages: out, replaced };
}
