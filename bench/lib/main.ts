/**
 * The shared entry-point logic: run the named parts in order, print each as
 * it finishes, then every target in one list. BENCH_SCALE (default 1) scales
 * rounds down for a quick look; BENCH_JSON=path also writes the results as
 * JSON. A missed target never fails the run (benchmarks report, they do not
 * gate), but a part that could not run to the end exits 1, so CI sees it.
 */
import { writeFileSync } from 'node:fs';
import { runPart, type PartName } from '../parts/index.js';
import { describeMachine, machineInfo } from './machine.js';
import { formatPart, type PartResult } from './report.js';

export async function runBench(names: readonly PartName[]): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE ?? '1');
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`BENCH_SCALE must be a positive number, not ${process.env.BENCH_SCALE}`);
  const before = machineInfo();
  console.log(`localagents benchmarks: ${names.join(', ')} (scale ${scale})`);
  console.log(describeMachine(before));
  console.log('Times are medians with (min–max) over rounds; each round runs the variants side by side.\n');
  const started = performance.now();
  const results: PartResult[] = [];
  for (const name of names) {
    const result = await runPart(name, scale);
    results.push(result);
    console.log(formatPart(result));
  }
  const after = machineInfo();
  console.log(`# all targets (${((performance.now() - started) / 1000).toFixed(0)} s in all; load average now ${after.load.join(' ')})`);
  for (const r of results) {
    for (const t of r.targets) console.log(`[${t.met === undefined ? 'n/a ' : t.met ? 'MET ' : 'MISS'}] ${r.part}: ${t.what}: ${t.measured} (target ${t.target})`);
    if (r.notes.some((n) => n.startsWith('FAILED'))) {
      console.log(`[FAIL] ${r.part}: did not run to the end (see above)`);
      process.exitCode = 1;
    }
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify({ machine: { before, after }, scale, results }, null, 2)}\n`);
}
