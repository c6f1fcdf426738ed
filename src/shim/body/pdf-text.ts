/**
 * A PDF's text for a model server that cannot read PDF documents, bounded in
 * bytes, pages, text and time, and kept per content so every turn of a session
 * gets the same text for the same PDF (also when one extraction was slow).
 *
 * Library: unpdf (pdf.js's serverless build in one dependency-free package, no
 * native build; README says why). It runs in this thread: pdf.js parses a page
 * at a time between awaits, so the deadline is checked between pages; one
 * page's parse is bounded by the byte limit (measured in BENCHMARKS.md).
 */
import { getResolvedPDFJS } from 'unpdf';
import { base64ByteLength, sizeInWords } from '../rewrite/media-source.js';
import { MAX_DOCUMENT_TEXT, type PdfText } from '../rewrite/documents-as-text.js';

export interface PdfLimits {
  /** Decoded PDF bytes; a bigger one is not opened. */
  readonly maxBytes: number;
  readonly maxPages: number;
  readonly timeoutMs: number;
}

/** Anthropic's own PDF limits are 32 MB and 100 pages; the time is what a first turn may wait. */
export const PDF_LIMITS: PdfLimits = { maxBytes: 24_000_000, maxPages: 100, timeoutMs: 10_000 };

/** Outcomes kept per content key: a session re-sends every PDF on every turn. */
const KEPT_OUTCOMES = 64;

interface TextItemLike {
  readonly str?: unknown;
  readonly hasEOL?: unknown;
}

function errorReason(err: unknown): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return 'it is encrypted';
  if (name === 'InvalidPDFException') return 'it is not a valid PDF';
  const message = err instanceof Error ? err.message : String(err);
  return `it could not be read: ${message.slice(0, 120)}`;
}

/** Extracts the text of one base64 PDF within `limits`; never throws. */
export async function extractPdfText(data: string, limits: PdfLimits = PDF_LIMITS): Promise<PdfText> {
  const bytes = base64ByteLength(data);
  if (bytes > limits.maxBytes) return { ok: false, reason: `it is larger than ${sizeInWords(limits.maxBytes)}` };
  const pdfjs = await getResolvedPDFJS();
  const task = pdfjs.getDocument({
    data: new Uint8Array(Buffer.from(data, 'base64')),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  });
  const deadline = performance.now() + limits.timeoutMs;
  const late = (): boolean => performance.now() > deadline;
  const slow = `it took longer than ${limits.timeoutMs / 1000} s`;
  // pdf.js resolves page after page without yielding to timers, so the deadline is read between
  // steps; the timer only ends a load that is waiting for pdf.js's own (fake) worker.
  const timer = setTimeout(() => void task.destroy(), limits.timeoutMs);
  try {
    const doc = await task.promise;
    const pagesRead = Math.min(doc.numPages, limits.maxPages);
    let text = '';
    let page = 0;
    while (page < pagesRead && text.length <= MAX_DOCUMENT_TEXT) {
      if (late()) return { ok: false, reason: slow };
      page += 1;
      const content = await (await doc.getPage(page)).getTextContent();
      for (const item of content.items as readonly TextItemLike[]) {
        if (typeof item.str === 'string') text += item.str;
        if (item.hasEOL === true) text += '\n';
      }
      text += '\n\n';
    }
    if (late()) return { ok: false, reason: slow };
    text = text.trim();
    if (text === '') return { ok: false, reason: 'it has no text layer (a scanned PDF?)' };
    return { ok: true, text, pages: doc.numPages, pagesRead: page, truncated: page < doc.numPages };
  } catch (err) {
    return { ok: false, reason: late() ? slow : errorReason(err) };
  } finally {
    clearTimeout(timer);
    void task.destroy();
  }
}

export interface PdfTextCache {
  /** The outcome for this content key, extracting once (concurrent asks share one extraction). */
  get(key: string, data: string): Promise<PdfText>;
}

/** Outcomes kept by content key, the least recently used dropped first. */
export function createPdfTextCache(extract: (data: string) => Promise<PdfText> = extractPdfText): PdfTextCache {
  const kept = new Map<string, Promise<PdfText>>();
  return {
    get(key, data) {
      const hit = kept.get(key);
      if (hit !== undefined) {
        kept.delete(key);
        kept.set(key, hit);
        return hit;
      }
      const outcome = extract(data);
      kept.set(key, outcome);
      if (kept.size > KEPT_OUTCOMES) kept.delete(kept.keys().next().value ?? key);
      return outcome;
    },
  };
}
