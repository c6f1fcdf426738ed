import { describe, expect, it } from 'vitest';
import { imageSize } from '../../../src/shim/rewrite/image-header.js';
import { makePng } from '../../helpers/media-files.js';

/** A JPEG start: SOI, an APP0 segment, then a baseline SOF0 with height and width. */
function jpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

function webpHeader(chunk: 'VP8X' | 'VP8L', width: number, height: number): Buffer {
  const b = Buffer.alloc(32);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write(chunk, 12, 'latin1');
  if (chunk === 'VP8X') {
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  } else {
    b[20] = 0x2f;
    b.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
  }
  return b;
}

describe('imageSize (reads only the header)', () => {
  it('reads PNG, JPEG, GIF and WebP sizes', () => {
    expect(imageSize(makePng(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageSize(jpegHeader(1920, 1080))).toEqual({ width: 1920, height: 1080 });
    const gif = Buffer.from([...Buffer.from('GIF89a'), 0x20, 0x03, 0x58, 0x02, 0, 0, 0]);
    expect(imageSize(gif)).toEqual({ width: 800, height: 600 });
    expect(imageSize(webpHeader('VP8X', 3000, 2000))).toEqual({ width: 3000, height: 2000 });
    expect(imageSize(webpHeader('VP8L', 300, 200))).toEqual({ width: 300, height: 200 });
  });

  it('says nothing for bytes it does not know, or a header cut short', () => {
    expect(imageSize(Buffer.from('not an image'))).toBeUndefined();
    expect(imageSize(makePng(10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageSize(jpegHeader(10, 10).subarray(0, 12))).toBeUndefined();
    expect(imageSize(Buffer.alloc(0))).toBeUndefined();
  });
});
