/**
 * Side-by-side measurement: in every round each variant serves short
 * sub-batches in turn (rotating who goes first), so a noisy neighbour on a
 * shared machine hits all variants alike. Per round and variant it keeps the
 * samples and the proxy CPU spent on them.
 */
import { rotate } from '../lib/stats.js';
import { postMessages, type Sample } from '../lib/http-client.js';
import type { Variant } from './shim-rig.js';

export interface RoundPlan {
  /** Rounds kept; one more warm-up round runs first and is dropped. */
  readonly rounds: number;
  /** Turns per round: each variant serves one sub-batch per turn. */
  readonly cycles: number;
  readonly perBatch: number;
  /** A smaller sub-batch for a slow variant, so it does not stretch the run (its samples are fewer). */
  readonly perBatchFor?: (variant: string) => number | undefined;
}

export interface VariantRound {
  readonly samples: Sample[];
  cpuMicros: number;
}

/** result[round][variant name] */
export type Rounds = Array<Map<string, VariantRound>>;

export async function runInterleaved(
  variants: readonly Variant[],
  bodies: readonly Buffer[],
  headers: Readonly<Record<string, string>>,
  plan: RoundPlan,
): Promise<Rounds> {
  const out: Rounds = [];
  let next = 0;
  for (let round = -1; round < plan.rounds; round++) {
    const byVariant = new Map<string, VariantRound>(variants.map((v) => [v.name, { samples: [], cpuMicros: 0 }]));
    for (let cycle = 0; cycle < plan.cycles; cycle++) {
      for (const v of rotate(variants, cycle + Math.max(0, round))) {
        const slot = byVariant.get(v.name);
        if (slot === undefined) continue;
        const before = await v.cpu();
        const count = plan.perBatchFor?.(v.name) ?? plan.perBatch;
        for (let i = 0; i < count; i++) {
          const body = bodies[next++ % bodies.length];
          if (body === undefined) throw new Error('no request bodies');
          const sample = await postMessages(v.target, headers, body);
          if (sample.status !== 200) throw new Error(`${v.name}: HTTP ${sample.status}`);
          slot.samples.push(sample);
        }
        slot.cpuMicros += (await v.cpu()) - before;
      }
    }
    if (round >= 0) out.push(byVariant);
  }
  return out;
}
