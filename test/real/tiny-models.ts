/**
 * Two tiny GGUF models for the real-server suite, written at test time (a few seconds, ~20 MB each).
 *
 * Both use llama.cpp's smallest dense architecture, `llama`: 1 layer, 32-wide embeddings, 2 heads of 16, a 64-wide FFN,
 * no separate output matrix (the output projection is the token-embedding matrix, as llama.cpp does when `output.weight`
 * is absent). The vocabulary and tokenizer metadata (`tokenizer.ggml.*`: 151,936 tokens, merges, pre-tokenizer `qwen35`)
 * are copied from the source's `models/ggml-vocab-qwen35.gguf`; the chat template is the source's
 * `models/templates/Qwen3.5-4B.jinja` (the one that rejects a mid-conversation system message), and the end-of-sequence
 * token is `<|im_end|>`, as in Qwen's instruct GGUFs.
 *
 * - **eos** (always an empty reply): every token embeds to the same all-ones vector, except `<|im_end|>`, which embeds to
 *   8× that vector; the layer's output projections (`attn_output`, `ffn_down`) are zero, so the hidden state after the layer
 *   is the last token's embedding, and RMS norm makes it the all-ones vector for any input. The logits are then
 *   32 for every token and 256 for `<|im_end|>`: the first sampled token ends the turn, whatever the sampler settings.
 * - **random** (long random output): every weight drawn from a seeded normal distribution (norm weights 1), so it
 *   rarely picks an end-of-generation token and writes until the server's `--n-predict` or the request's `max_tokens`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, sourceCommit } from './build-llama-server.js';
import { GgufType, f32, readGgufMetadata, str, u32, writeGguf, type GgufMetadata, type GgufTensor } from './gguf.js';

export const VOCAB_FILE = join('models', 'ggml-vocab-qwen35.gguf');
export const TEMPLATE_FILE = join('models', 'templates', 'Qwen3.5-4B.jinja');

const N_EMBD = 32;
const N_HEAD = 2;
const N_FF = 64;
const N_CTX_TRAIN = 262144;
const END_OF_TURN = '<|im_end|>';

type Kind = 'eos' | 'random';

/** Mulberry32: a seeded generator, so the random model is the same file on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(n: number, scale: number, next: () => number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = Math.max(next(), 1e-12);
    out[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next()) * scale;
  }
  return out;
}

function metadata(vocab: GgufMetadata, template: string, kind: Kind, eosId: number): GgufMetadata {
  const meta: GgufMetadata = new Map([
    ['general.architecture', str('llama')],
    ['general.name', str(`localagents-tiny-${kind}`)],
    ['llama.context_length', u32(N_CTX_TRAIN)],
    ['llama.embedding_length', u32(N_EMBD)],
    ['llama.block_count', u32(1)],
    ['llama.feed_forward_length', u32(N_FF)],
    ['llama.attention.head_count', u32(N_HEAD)],
    ['llama.attention.head_count_kv', u32(N_HEAD)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-6)],
    ['llama.rope.freq_base', f32(1e6)],
    ['llama.rope.dimension_count', u32(N_EMBD / N_HEAD)],
    ['general.file_type', u32(0)],
  ]);
  for (const [key, value] of vocab) if (key.startsWith('tokenizer.') && key !== 'tokenizer.chat_template') meta.set(key, value);
  meta.set('tokenizer.ggml.eos_token_id', u32(eosId));
  meta.set('tokenizer.ggml.add_bos_token', { type: GgufType.BOOL, value: false });
  meta.set('tokenizer.chat_template', str(template));
  return meta;
}

function tensors(kind: Kind, nVocab: number, eosId: number): GgufTensor[] {
  const next = seeded(16);
  const fill = (n: number, v: number): Float32Array => new Float32Array(n).fill(v);
  const weight = (n: number, fanIn: number): Float32Array =>
    kind === 'random' ? gaussian(n, 1 / Math.sqrt(fanIn), next) : fill(n, 0);
  let embeddings: Float32Array;
  if (kind === 'random') embeddings = gaussian(N_EMBD * nVocab, 1, next);
  else {
    embeddings = fill(N_EMBD * nVocab, 1);
    embeddings.fill(8, eosId * N_EMBD, (eosId + 1) * N_EMBD);
  }
  return [
    { name: 'token_embd.weight', dims: [N_EMBD, nVocab], data: embeddings },
    { name: 'output_norm.weight', dims: [N_EMBD], data: fill(N_EMBD, 1) },
    { name: 'blk.0.attn_norm.weight', dims: [N_EMBD], data: fill(N_EMBD, 1) },
    { name: 'blk.0.attn_q.weight', dims: [N_EMBD, N_EMBD], data: weight(N_EMBD * N_EMBD, N_EMBD) },
    { name: 'blk.0.attn_k.weight', dims: [N_EMBD, N_EMBD], data: weight(N_EMBD * N_EMBD, N_EMBD) },
    { name: 'blk.0.attn_v.weight', dims: [N_EMBD, N_EMBD], data: weight(N_EMBD * N_EMBD, N_EMBD) },
    { name: 'blk.0.attn_output.weight', dims: [N_EMBD, N_EMBD], data: weight(N_EMBD * N_EMBD, N_EMBD) },
    { name: 'blk.0.ffn_norm.weight', dims: [N_EMBD], data: fill(N_EMBD, 1) },
    { name: 'blk.0.ffn_gate.weight', dims: [N_EMBD, N_FF], data: weight(N_EMBD * N_FF, N_EMBD) },
    { name: 'blk.0.ffn_up.weight', dims: [N_EMBD, N_FF], data: weight(N_EMBD * N_FF, N_EMBD) },
    { name: 'blk.0.ffn_down.weight', dims: [N_FF, N_EMBD], data: weight(N_FF * N_EMBD, N_FF) },
  ];
}

/** Writes `<dir>/tiny-<kind>.gguf` from the llama.cpp source tree at `source`; returns its path. */
export function writeTinyModel(source: string, dir: string, kind: Kind): string {
  const vocab = readGgufMetadata(join(source, VOCAB_FILE));
  const tokens = vocab.get('tokenizer.ggml.tokens');
  if (tokens === undefined || !('items' in tokens)) throw new Error(`${VOCAB_FILE} has no tokenizer.ggml.tokens array`);
  const eosId = tokens.items.indexOf(END_OF_TURN);
  if (eosId < 0) throw new Error(`${VOCAB_FILE} has no ${END_OF_TURN} token`);
  const template = readFileSync(join(source, TEMPLATE_FILE), 'utf8');
  const path = join(dir, `tiny-${kind}.gguf`);
  writeGguf(path, metadata(vocab, template, kind, eosId), tensors(kind, tokens.items.length, eosId));
  return path;
}

export interface TinyModels {
  readonly eos: string;
  readonly random: string;
}

/**
 * Both models, written once into the cache next to the build and reused while the source commit and this
 * generator are unchanged (the directory is named by a hash of both).
 */
export function ensureTinyModels(source: string): TinyModels {
  const hash = createHash('sha256');
  hash.update(sourceCommit(source));
  for (const file of ['tiny-models.ts', 'gguf.ts']) hash.update(readFileSync(join(import.meta.dirname, file)));
  const dir = join(cacheRoot(), 'models', hash.digest('hex').slice(0, 16));
  const models = { eos: join(dir, 'tiny-eos.gguf'), random: join(dir, 'tiny-random.gguf') };
  if (existsSync(models.eos) && existsSync(models.random)) return models;
  const partial = `${dir}.partial-${process.pid}`;
  mkdirSync(partial, { recursive: true });
  writeTinyModel(source, partial, 'eos');
  writeTinyModel(source, partial, 'random');
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return models;
}
