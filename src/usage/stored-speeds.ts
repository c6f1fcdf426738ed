/**
 * Per-request speeds as a usage index month file keeps them: the lists end to end
 * as little-endian 64-bit floats, in a binary section of the file. A year of
 * speeds parsed as JSON numbers cost a report ~10 ms of its ~50; kept as bytes,
 * each list is a view of the bytes read, not a copy, and a median reads only the
 * few values it needs. Values are exact: a median from the index is the median
 * of the speeds the jobs' logs give.
 */
import { concatenated, type SortedSpeeds } from './sorted-median.js';

/** This machine stores floats low byte first (all but a few); otherwise bytes are swapped on the way in and out. */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
export const FLOAT_BYTES = 8;

export function encodeSpeeds(lists: readonly SortedSpeeds[]): Buffer {
  const bytes = Buffer.from(concatenated(lists).buffer);
  return LITTLE_ENDIAN ? bytes : bytes.swap64();
}

/** Lists of the given lengths, or undefined when the bytes do not hold exactly that many floats. */
export function decodeSpeeds(bytes: Buffer, lengths: readonly number[]): Float64Array[] | undefined {
  const count = lengths.reduce((n, l) => n + l, 0);
  if (bytes.length !== count * FLOAT_BYTES) return undefined;
  // A float view needs its offset a multiple of 8 (month files place the section so); otherwise, and to swap, a copy.
  const own = bytes.byteOffset % FLOAT_BYTES === 0 && LITTLE_ENDIAN ? bytes : Buffer.from(new Uint8Array(bytes).buffer);
  const all = new Float64Array(own.buffer, own.byteOffset, count);
  if (!LITTLE_ENDIAN) own.swap64();
  let at = 0;
  return lengths.map((length) => all.subarray(at, (at += length)));
}
