/** PDF text extraction with unpdf, on real PDFs made by the test helper: each bound and each failure says what happened. */
import { describe, expect, it } from 'vitest';
import { createPdfTextCache, extractPdfText, PDF_LIMITS } from '../../src/shim/body/pdf-text.js';
import { makeEncryptedPdf, makePdf } from '../helpers/media-files.js';

const b64 = (b: Buffer): string => b.toString('base64');

describe('extractPdfText', () => {
  it('returns the text of every page, pages apart', async () => {
    expect(await extractPdfText(b64(makePdf(['First page\nsecond line', 'Second page'])))).toEqual({
      ok: true,
      text: 'First page\nsecond line\n\nSecond page',
      pages: 2,
      pagesRead: 2,
      truncated: false,
    });
  });

  it('stops at the page limit and says how many pages there were', async () => {
    const pages = Array.from({ length: 5 }, (_, i) => `page ${i + 1}`);
    expect(await extractPdfText(b64(makePdf(pages)), { ...PDF_LIMITS, maxPages: 2 })).toMatchObject({ ok: true, text: 'page 1\n\npage 2', pages: 5, pagesRead: 2, truncated: true });
  });

  it('names why there is no text: encrypted, not a PDF, too large, too slow, no text layer', async () => {
    expect(await extractPdfText(b64(makeEncryptedPdf(['secret'])))).toEqual({ ok: false, reason: 'it is encrypted' });
    expect(await extractPdfText(b64(Buffer.from('plain text, not a PDF')))).toEqual({ ok: false, reason: 'it is not a valid PDF' });
    expect(await extractPdfText(b64(makePdf(['x'])), { ...PDF_LIMITS, maxBytes: 100 })).toEqual({ ok: false, reason: 'it is larger than 100 bytes' });
    const big = makePdf(Array.from({ length: 200 }, (_, i) => `page ${i} `.repeat(40)));
    expect(await extractPdfText(b64(big), { ...PDF_LIMITS, timeoutMs: 1 })).toEqual({ ok: false, reason: 'it took longer than 0.001 s' });
    expect(await extractPdfText(b64(makePdf([''])))).toEqual({ ok: false, reason: 'it has no text layer (a scanned PDF?)' });
  });
});

describe('createPdfTextCache', () => {
  it('extracts each content once, so every turn gets the outcome of the first', async () => {
    let calls = 0;
    const cache = createPdfTextCache((data) => {
      calls += 1;
      return Promise.resolve({ ok: true, text: data, pages: 1, pagesRead: 1, truncated: false });
    });
    const [a, b] = await Promise.all([cache.get('k', 'one'), cache.get('k', 'one')]);
    expect(a).toBe(b);
    expect(calls).toBe(1);
    await cache.get('other', 'two');
    expect(calls).toBe(2);
  });
});
