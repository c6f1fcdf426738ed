/**
 * The eight benchmark parts, by name, each a function from a scale factor
 * (BENCH_SCALE: fewer rounds below 1) to its tables and targets. The entry
 * points pick which to run.
 */
import { allCapturedRequests } from '../lib/fixtures.js';
import { timed, type PartResult, type Table } from '../lib/report.js';
import { formatSpread } from '../lib/stats.js';
import { measureCallerCost } from './caller-cost.js';
import { measureCliStart } from './cli-start.js';
import { measureJobRecords } from './job-records.js';
import { measureJobStart } from './job-start.js';
import { measureMultiProcess } from './multi-process.js';
import { measurePipeline } from './normalise-cost.js';
import { measurePrefixStability } from './prefix-stability.js';
import { measureProbing } from './probing.js';
import { measureScale } from './scale.js';
import { measureGrowthBySize } from './shim-growth.js';
import { measureStreamsUnderLoad } from './shim-load.js';
import { measureMedia } from './shim-media.js';
import { measureOverhead } from './shim-overhead.js';
import { startShimRig } from './shim-rig.js';

export type PartName = 'shim' | 'prefix' | 'start' | 'probing' | 'sched' | 'growth' | 'procs' | 'cli' | 'caller';

function pipelineTable(rounds: number): Table {
  const bodies = allCapturedRequests().map((r) => Buffer.from(JSON.stringify(r.body)));
  const meanKb = bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1000;
  const cost = measurePipeline(bodies, rounds);
  return {
    title: `(e) parse + normaliseRequest + stringify alone over the ${bodies.length} captured bodies (mean ${meanKb.toFixed(0)} kB), CPU µs per body, ${rounds} rounds`,
    columns: ['JSON.parse', 'normaliseRequest', 'stringify+encode', 'full parse pipeline', `shim pipeline (spans)${cost.spliceIdentical ? ' (same bytes)' : ' (OUTPUT DIFFERS)'}`],
    rows: [[formatSpread(cost.parse, 0), formatSpread(cost.normalise, 0), formatSpread(cost.serialise, 0), formatSpread(cost.total, 0), formatSpread(cost.splice, 0)]],
  };
}

const PARTS: Record<PartName, { title: string; run: (scale: number) => Promise<Omit<PartResult, 'part' | 'seconds'>> }> = {
  shim: {
    title: '1. shim overhead',
    async run(scale) {
      const rig = await startShimRig({ gateway: true });
      try {
        const overhead = await measureOverhead(rig, scale);
        const load = await measureStreamsUnderLoad(rig, scale);
        const media = await measureMedia(rig, scale);
        return {
          tables: [...overhead.tables, load.table, pipelineTable(Math.max(3, Math.round(5 * scale))), media],
          targets: [...overhead.targets, ...load.targets],
          notes: [...(rig.gatewayNote ? [rig.gatewayNote] : []), ...overhead.notes, ...load.notes],
        };
      } finally {
        await rig.close();
      }
    },
  },
  prefix: { title: '2. prompt-prefix stability', run: () => Promise.resolve(measurePrefixStability()) },
  start: { title: '3. job start', run: (scale) => measureJobStart(scale) },
  probing: { title: '4. probing', run: (scale) => measureProbing(scale) },
  sched: { title: '5. scale: 16 jobs on 4 slots', run: (scale) => measureScale(scale) },
  procs: { title: '7. several processes: N × M jobs on S slots', run: (scale) => measureMultiProcess(scale) },
  cli: { title: '9. command-line start', run: (scale) => measureCliStart(scale) },
  caller: { title: '10. caller cost per delegation', run: (scale) => measureCallerCost(scale) },
  growth: {
    title: '6. cost growth',
    async run(scale) {
      const rig = await startShimRig({ gateway: true });
      let bySize;
      try {
        bySize = await measureGrowthBySize(rig, scale);
      } finally {
        await rig.close();
      }
      const records = await measureJobRecords(scale);
      return { tables: [...bySize.tables, ...records.tables], targets: [...bySize.targets, ...records.targets], notes: [...(rig.gatewayNote ? [rig.gatewayNote] : []), ...records.notes] };
    },
  },
};

export function runPart(name: PartName, scale: number): Promise<PartResult> {
  const part = PARTS[name];
  return timed(part.title, () => part.run(scale));
}
