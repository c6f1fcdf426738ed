/**
 * The shim's body work alone, in this process: the full JSON.parse,
 * normaliseRequest, JSON.stringify pipeline the shim first used, next to what
 * it does now (parse and rewrite only the top-level values its rules read). Timed in CPU time
 * (process.cpuUsage), which a busy neighbour inflates far less than wall time.
 */
import { normaliseRequest } from '../../src/shim/body/normalise.js';
import { readBodyView, writeBody } from '../../src/shim/json/json-body.js';
import { spread, type Spread } from '../lib/stats.js';

export interface PipelineCost {
  readonly parse: Spread;
  readonly normalise: Spread;
  readonly serialise: Spread;
  readonly total: Spread;
  /** What the shim does now (src/shim/json/json-body.ts): parse and re-serialise only the values the rules read. */
  readonly splice: Spread;
  /** Whether the shim's pipeline produced the same bytes as a full parse + stringify on every body. */
  readonly spliceIdentical: boolean;
}

/** The shim's body work: top-level spans, normalise the values the rules read, splice them back. */
function spliceNormalise(b: Buffer, options: { servedModel: string }): Buffer {
  const view = readBodyView(b);
  if (view === undefined) return b;
  // normaliseRequest returns an object for an object body.
  return writeBody(view, normaliseRequest(view.fields, options).body as Record<string, unknown>);
}

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** CPU µs per call of `f`, over `iterations` calls. */
function perCall(iterations: number, f: () => unknown): number {
  const before = cpuMicros();
  for (let i = 0; i < iterations; i++) f();
  return (cpuMicros() - before) / iterations;
}

/**
 * Each round times every stage over enough calls to fill ~`budgetMs` of CPU
 * (at least 5), rotating through `bodies`; the first round warms the JIT and is dropped.
 */
export function measurePipeline(bodies: readonly Buffer[], rounds: number, budgetMs = 60): PipelineCost {
  const parsed = bodies.map((b) => JSON.parse(b.toString('utf8')) as unknown);
  const normalised = parsed.map((p) => normaliseRequest(p, { servedModel: 'bench-model' }).body);
  let k = 0;
  const next = (): number => k++ % bodies.length;
  const probe = perCall(3, () => JSON.stringify(normaliseRequest(JSON.parse((bodies[next()] ?? Buffer.alloc(0)).toString('utf8')), { servedModel: 'bench-model' }).body));
  const iterations = Math.max(5, Math.round((budgetMs * 1000) / Math.max(1, probe)));
  const current = (b: Buffer): Buffer => Buffer.from(JSON.stringify(normaliseRequest(JSON.parse(b.toString('utf8')), { servedModel: 'bench-model' }).body));
  const spliceIdentical = bodies.every((b) => spliceNormalise(b, { servedModel: 'bench-model' }).equals(current(b)));
  const out = { parse: [] as number[], normalise: [] as number[], serialise: [] as number[], total: [] as number[], splice: [] as number[] };
  for (let round = -1; round < rounds; round++) {
    // normaliseRequest copies what it changes and never mutates its input, so one parsed body serves every call.
    const parse = perCall(iterations, () => JSON.parse((bodies[next()] ?? Buffer.alloc(0)).toString('utf8')));
    const normalise = perCall(iterations, () => normaliseRequest(parsed[next()], { servedModel: 'bench-model' }));
    const serialise = perCall(iterations, () => Buffer.from(JSON.stringify(normalised[next()])));
    const total = perCall(iterations, () => current(bodies[next()] ?? Buffer.alloc(0)));
    const splice = perCall(iterations, () => spliceNormalise(bodies[next()] ?? Buffer.alloc(0), { servedModel: 'bench-model' }));
    if (round < 0) continue;
    out.parse.push(parse);
    out.normalise.push(normalise);
    out.serialise.push(serialise);
    out.total.push(total);
    out.splice.push(splice);
  }
  return {
    parse: spread(out.parse),
    normalise: spread(out.normalise),
    serialise: spread(out.serialise),
    total: spread(out.total),
    splice: spread(out.splice),
    spliceIdentical,
  };
}
