/**
 * A small GGUF (v3) reader and writer: enough to copy the tokenizer metadata out of llama.cpp's
 * vocabulary-only files and to write tiny F32 models around it. Format: ggml/docs/gguf.md of the same source.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** GGUF metadata value types (gguf.md, `gguf_metadata_value_type`). */
export const GgufType = {
  UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7,
  STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12,
} as const;

export type GgufValue =
  | { type: number; value: number | bigint | boolean | string }
  | { type: typeof GgufType.ARRAY; itemType: number; items: Array<number | bigint | boolean | string> };

/** Ordered metadata, as in the file. */
export type GgufMetadata = Map<string, GgufValue>;

export interface GgufTensor {
  readonly name: string;
  /** ggml order: dims[0] is the contiguous (row) dimension. */
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

const GGML_TYPE_F32 = 0;
const ALIGNMENT = 32;

class Reader {
  private offset = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  u32(): number { const v = this.view.getUint32(this.offset, true); this.offset += 4; return v; }
  u64(): bigint { const v = this.view.getBigUint64(this.offset, true); this.offset += 8; return v; }
  string(): string {
    const len = Number(this.u64());
    const s = this.buf.toString('utf8', this.offset, this.offset + len);
    this.offset += len;
    return s;
  }
  scalar(type: number): number | bigint | boolean | string {
    const v = this.view;
    const o = this.offset;
    switch (type) {
      case GgufType.UINT8: this.offset += 1; return v.getUint8(o);
      case GgufType.INT8: this.offset += 1; return v.getInt8(o);
      case GgufType.UINT16: this.offset += 2; return v.getUint16(o, true);
      case GgufType.INT16: this.offset += 2; return v.getInt16(o, true);
      case GgufType.UINT32: this.offset += 4; return v.getUint32(o, true);
      case GgufType.INT32: this.offset += 4; return v.getInt32(o, true);
      case GgufType.FLOAT32: this.offset += 4; return v.getFloat32(o, true);
      case GgufType.BOOL: this.offset += 1; return v.getUint8(o) !== 0;
      case GgufType.STRING: return this.string();
      case GgufType.UINT64: this.offset += 8; return v.getBigUint64(o, true);
      case GgufType.INT64: this.offset += 8; return v.getBigInt64(o, true);
      case GgufType.FLOAT64: this.offset += 8; return v.getFloat64(o, true);
      default: throw new Error(`GGUF: unknown value type ${type} at byte ${o}`);
    }
  }
}

/** The metadata of a GGUF file (its tensors are not read). */
export function readGgufMetadata(path: string): GgufMetadata {
  const r = new Reader(readFileSync(path));
  const magic = r.u32();
  if (magic !== 0x46554747) throw new Error(`${path}: not a GGUF file`);
  const version = r.u32();
  if (version !== 3) throw new Error(`${path}: GGUF version ${version}, expected 3`);
  r.u64(); // tensor count
  const kvCount = Number(r.u64());
  const meta: GgufMetadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string();
    const type = r.u32();
    if (type === GgufType.ARRAY) {
      const itemType = r.u32();
      const n = Number(r.u64());
      const items = new Array<number | bigint | boolean | string>(n);
      for (let j = 0; j < n; j++) items[j] = r.scalar(itemType);
      meta.set(key, { type, itemType, items });
    } else {
      meta.set(key, { type, value: r.scalar(type) });
    }
  }
  return meta;
}

/** Growable little-endian byte sink (one buffer, doubled when full: the vocabulary is ~450k small values). */
class Writer {
  private buf = Buffer.alloc(1 << 20);
  length = 0;
  private reserve(n: number): number {
    if (this.length + n > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  /** Grows first, then writes: `this.buf` may be a new buffer after reserve(). */
  private put(n: number, write: (buf: Buffer, at: number) => unknown): void {
    const at = this.reserve(n);
    write(this.buf, at);
  }
  push(b: Uint8Array): void { this.put(b.length, (buf, at) => buf.set(b, at)); }
  u32(v: number): void { this.put(4, (buf, at) => buf.writeUInt32LE(v, at)); }
  u64(v: number | bigint): void { this.put(8, (buf, at) => buf.writeBigUInt64LE(BigInt(v), at)); }
  string(s: string): void {
    const len = Buffer.byteLength(s, 'utf8');
    this.u64(len);
    this.put(len, (buf, at) => buf.write(s, at, 'utf8'));
  }
  scalar(type: number, value: number | bigint | boolean | string): void {
    const n = Number(value);
    switch (type) {
      case GgufType.UINT8: return this.put(1, (buf, at) => buf.writeUInt8(n, at));
      case GgufType.INT8: return this.put(1, (buf, at) => buf.writeInt8(n, at));
      case GgufType.UINT16: return this.put(2, (buf, at) => buf.writeUInt16LE(n, at));
      case GgufType.INT16: return this.put(2, (buf, at) => buf.writeInt16LE(n, at));
      case GgufType.UINT32: return this.put(4, (buf, at) => buf.writeUInt32LE(n, at));
      case GgufType.INT32: return this.put(4, (buf, at) => buf.writeInt32LE(n, at));
      case GgufType.FLOAT32: return this.put(4, (buf, at) => buf.writeFloatLE(n, at));
      case GgufType.BOOL: return this.put(1, (buf, at) => buf.writeUInt8(value === true ? 1 : 0, at));
      case GgufType.STRING: return this.string(String(value));
      case GgufType.UINT64: return this.put(8, (buf, at) => buf.writeBigUInt64LE(BigInt(value), at));
      case GgufType.INT64: return this.put(8, (buf, at) => buf.writeBigInt64LE(BigInt(value), at));
      case GgufType.FLOAT64: return this.put(8, (buf, at) => buf.writeDoubleLE(n, at));
      default: throw new Error(`GGUF: cannot write value type ${type}`);
    }
  }
  pad(): void {
    const rest = this.length % ALIGNMENT;
    if (rest !== 0) this.reserve(ALIGNMENT - rest); // Buffer.alloc zero-fills
  }
  toBuffer(): Buffer { return this.buf.subarray(0, this.length); }
}

const alignUp = (n: number): number => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

/** Writes a GGUF v3 file with the given metadata and F32 tensors. */
export function writeGguf(path: string, meta: GgufMetadata, tensors: readonly GgufTensor[]): void {
  const w = new Writer();
  w.u32(0x46554747);
  w.u32(3);
  w.u64(tensors.length);
  w.u64(meta.size);
  for (const [key, value] of meta) {
    w.string(key);
    w.u32(value.type);
    if ('items' in value) {
      w.u32(value.itemType);
      w.u64(value.items.length);
      for (const item of value.items) w.scalar(value.itemType, item);
    } else {
      w.scalar(value.type, value.value);
    }
  }
  let offset = 0;
  for (const t of tensors) {
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length) throw new Error(`GGUF: tensor ${t.name} has ${t.data.length} values for dims ${t.dims.join('×')}`);
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(GGML_TYPE_F32);
    w.u64(offset);
    offset = alignUp(offset + t.data.byteLength);
  }
  w.pad();
  for (const t of tensors) {
    w.push(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    w.pad();
  }
  writeFileSync(path, w.toBuffer());
}

export const str = (value: string): GgufValue => ({ type: GgufType.STRING, value });
export const u32 = (value: number): GgufValue => ({ type: GgufType.UINT32, value });
export const f32 = (value: number): GgufValue => ({ type: GgufType.FLOAT32, value });
