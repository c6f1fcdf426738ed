/**
 * Real image and PDF files for tests, made here (no binary fixtures): an RGB
 * PNG, and a text PDF with one Helvetica text object per line, laid out as
 * PDF 1.4 with a correct xref table (pdf.js reads it without repairs).
 */
import { deflateSync } from 'node:zlib';

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A width×height RGB PNG; `seed` changes the colours (another image with the same size). `noise`: pixels from a
 * xorshift generator, which deflate cannot shrink (a photo-sized file: 1600×1200 is ~5.8 MB).
 */
export function makePng(width: number, height: number, seed = 0, noise = false): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const row = width * 3 + 1;
  const raw = Buffer.alloc(row * height);
  let state = (seed * 2654435761 + 1) >>> 0 || 1;
  const random = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state & 0xff;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * row + 1 + x * 3;
      raw[o] = noise ? random() : (x * 7 + seed) & 0xff;
      raw[o + 1] = noise ? random() : (y * 5 + seed * 3) & 0xff;
      raw[o + 2] = noise ? random() : (x * y + seed) & 0xff;
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

function pdfString(line: string): string {
  return `(${line.replace(/[()\\]/g, '\\$&')})`;
}

/** A PDF with one page per element, each line of it a text line on that page. */
export function makePdf(pages: readonly string[]): Buffer {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((text, i) => {
    const stream = text
      .split('\n')
      .map((line, j) => `BT /F1 12 Tf 72 ${720 - j * 14} Td ${pdfString(line)} Tj ET`)
      .join('\n');
    objects[4 + i * 2] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`;
    objects[5 + i * 2] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let i = 1; i < objects.length; i++) {
    offsets[i] = Buffer.byteLength(out, 'latin1');
    out += `${i} 0 obj\n${objects[i] ?? ''}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let i = 1; i < objects.length; i++) out += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PDF whose standard security handler does not open with the empty user password: pdf.js asks for one. */
export function makeEncryptedPdf(pages: readonly string[]): Buffer {
  const encrypt = `/Encrypt << /Filter /Standard /V 1 /R 2 /O <${'11'.repeat(32)}> /U <${'22'.repeat(32)}> /P -4 >> /ID [<${'33'.repeat(16)}> <${'33'.repeat(16)}>] `;
  return Buffer.from(makePdf(pages).toString('latin1').replace('trailer\n<< ', `trailer\n<< ${encrypt}`), 'latin1');
}
