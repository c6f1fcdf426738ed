/**
 * Images and documents a model server cannot take, turned into text before
 * the request is forwarded: documents always (no backend here takes a
 * `document` block, see rewrite/documents-as-text.ts), images when the
 * endpoint has no vision. Owns the order and the async PDF step; the rules
 * themselves are the pure functions in rewrite/.
 */
import { documentsAsText, pdfsToExtract, type PdfText } from '../rewrite/documents-as-text.js';
import { imagesAsText, type MediaReplacement } from '../rewrite/images-as-text.js';
import type { PdfTextCache } from './pdf-text.js';

export interface MediaResult {
  /** The input array itself when nothing was replaced. */
  readonly messages: readonly unknown[];
  readonly replaced: readonly MediaReplacement[];
}

const IMAGE_TYPE = Buffer.from('"image"');
const DOCUMENT_TYPE = Buffer.from('"document"');

/** Cheap first look at the raw body: most requests hold neither, and parsing nothing costs nothing. */
export function mayHoldMedia(raw: Buffer, vision: boolean): boolean {
  return raw.includes(DOCUMENT_TYPE) || (!vision && raw.includes(IMAGE_TYPE));
}

export async function replaceMedia(messages: readonly unknown[], vision: boolean, pdfTexts: PdfTextCache): Promise<MediaResult> {
  const pdfs = new Map<string, PdfText>();
  for (const pdf of pdfsToExtract(messages)) pdfs.set(pdf.key, await pdfTexts.get(pdf.key, pdf.data));
  const documents = documentsAsText(messages, pdfs);
  const images = vision ? { messages: documents.messages, replaced: [] } : imagesAsText(documents.messages);
  return { messages: images.messages, replaced: [...documents.replaced, ...images.replaced] };
}

/** The requests.jsonl rewrite line for what was replaced, or undefined for nothing. */
export function describeMedia(replaced: readonly MediaReplacement[]): string | undefined {
  if (replaced.length === 0) return undefined;
  const images = replaced.filter((r) => r.kind === 'image').length;
  const extracted = replaced.filter((r) => r.kind === 'document' && r.outcome === 'extracted').length;
  const failed = replaced.filter((r) => r.kind === 'document' && r.outcome === 'failed').length;
  const parts = [images > 0 && `${images} image(s) → note (no vision)`, extracted > 0 && `${extracted} document(s) → text`, failed > 0 && `${failed} document(s) → note (no text)`];
  return `replaced ${parts.filter(Boolean).join(', ')}`;
}
