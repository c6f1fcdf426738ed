/**
 * The two media rules on Claude Code's own request (captured: a Read of a PNG
 * and of a PDF, see captures/README.md): what the model reads in place of each
 * block, that it is the same on every call, and that nothing else moves.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentsAsText, MAX_DOCUMENT_TEXT, pdfsToExtract, type PdfText } from '../../../src/shim/rewrite/documents-as-text.js';
import { imagesAsText } from '../../../src/shim/rewrite/images-as-text.js';
import { extractPdfText } from '../../../src/shim/body/pdf-text.js';
import { makePng } from '../../helpers/media-files.js';

const CAPTURE = new URL('./captures/read-png-pdf.request-3.json', import.meta.url);
const body = JSON.parse(readFileSync(CAPTURE, 'utf8')) as { messages: unknown[] };
const REPO = '/tmp/la-repo-XCfvUS';

function texts(messages: readonly unknown[]): string {
  return JSON.stringify(messages);
}

describe('imagesAsText', () => {
  it("replaces the Read tool's image with a note naming the file, type, size and dimensions", () => {
    const out = imagesAsText(body.messages);
    const json = texts(out.messages);
    expect(json).not.toContain('"type":"image"');
    expect(json).toContain(`[image ${REPO}/shot.png (image/png, 40×30 px, 2.4 kB): not shown: this model server cannot see images, so localagents put this note in its place]`);
    expect(out.replaced).toHaveLength(1);
    expect(out.replaced[0]).toMatchObject({ kind: 'image', outcome: 'described' });
    expect(out.replaced[0]?.key).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives the same bytes on every call and leaves every other message the same object', () => {
    const a = imagesAsText(body.messages);
    const b = imagesAsText(structuredClone(body.messages));
    expect(texts(a.messages)).toBe(texts(b.messages));
    const changed = a.messages.filter((m, i) => m !== body.messages[i]);
    expect(changed).toHaveLength(1);
  });

  it('replaces an image a user pasted, and one given by URL; a body without images comes back as is', () => {
    const png = makePng(8, 6).toString('base64');
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] },
      { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } }] },
    ];
    const json = texts(imagesAsText(messages).messages);
    expect(json).toContain('[image (image/png, 8×6 px, ');
    expect(json).toContain('[image at https://example.com/a.jpg: not shown');
    const plain = [{ role: 'user', content: 'hi' }];
    expect(imagesAsText(plain).messages).toBe(plain);
  });
});

describe('documentsAsText', () => {
  it("puts the PDF's text, extracted for real, in place of the document block", async () => {
    const [pdf] = pdfsToExtract(body.messages);
    expect(pdf).toBeDefined();
    const outcome = await extractPdfText(pdf?.data ?? '');
    const out = documentsAsText(body.messages, new Map([[pdf?.key ?? '', outcome]]));
    const json = texts(out.messages);
    expect(json).not.toContain('"type":"document"');
    expect(json).toContain(`[PDF ${REPO}/spec.pdf (634 bytes, 1 page): its text, extracted by localagents because this model server cannot read PDF documents]\\nSpec title\\nThe answer is 42.`);
    // Claude Code's own text block before it stays.
    expect(json).toContain(`PDF file read: ${REPO}/spec.pdf (634 bytes)`);
    expect(out.replaced).toEqual([{ kind: 'document', key: pdf?.key, outcome: 'extracted' }]);
  });

  it('says why there is no text when extraction failed, and cuts a long text with a note', () => {
    const [pdf] = pdfsToExtract(body.messages);
    const failed = documentsAsText(body.messages, new Map<string, PdfText>([[pdf?.key ?? '', { ok: false, reason: 'it is encrypted' }]]));
    expect(texts(failed.messages)).toContain('its text could not be extracted (it is encrypted), and this model server cannot read PDF documents');
    expect(failed.replaced[0]).toMatchObject({ outcome: 'failed', reason: 'it is encrypted' });

    const long = `${'x'.repeat(99)}\n`.repeat(2000);
    const cut = documentsAsText(body.messages, new Map<string, PdfText>([[pdf?.key ?? '', { ok: true, text: long, pages: 300, pagesRead: 100, truncated: true }]]));
    const text = texts(cut.messages);
    expect(text).toContain('300 pages');
    expect(text).toContain('[the rest of this PDF is left out: localagents passes at most 100 pages and 100.0 kB of its text');
    const block = JSON.stringify(cut.messages).match(/"text":"(\[PDF [^"]*(?:\\.[^"]*)*)"/)?.[1] ?? '';
    expect(block.length).toBeGreaterThan(MAX_DOCUMENT_TEXT * 0.9);
    expect(block.length).toBeLessThan(MAX_DOCUMENT_TEXT * 1.03); // the kept text, its escaped line ends and the two notes
  });

  it('passes a plain-text document as its text and names a kind it cannot read', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'document', title: 'notes.txt', source: { type: 'text', media_type: 'text/plain', data: 'line one' } },
          { type: 'document', source: { type: 'url', url: 'https://example.com/x.pdf' } },
        ],
      },
    ];
    const out = documentsAsText(messages, new Map());
    expect(texts(out.messages)).toContain('[document notes.txt: its text, passed as plain text because this model server cannot read document blocks]\\nline one');
    expect(texts(out.messages)).toContain('(at https://example.com/x.pdf): this model server cannot read document blocks');
    expect(out.replaced.map((r) => r.outcome)).toEqual(['extracted', 'failed']);
  });
});
