/**
 * What a benchmark part hands back (tables, targets, notes) and how it is
 * printed: plain aligned text tables, then one line per target saying met or
 * missed. run.ts also writes the same data as JSON for BENCHMARKS.md.
 */

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface Target {
  readonly what: string;
  /** The measured value, formatted (median and spread where there are rounds). */
  readonly measured: string;
  readonly target: string;
  /** undefined: could not be measured here (a note says why). */
  readonly met: boolean | undefined;
}

export interface PartResult {
  readonly part: string;
  readonly tables: readonly Table[];
  readonly targets: readonly Target[];
  readonly notes: readonly string[];
  readonly seconds: number;
}

export function formatTable(table: Table): string {
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  return [
    `## ${table.title}`,
    line(table.columns),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...table.rows.map(line),
  ].join('\n');
}

export function formatPart(result: PartResult): string {
  const out = [`# ${result.part} (${result.seconds.toFixed(1)} s)`, ''];
  for (const t of result.tables) out.push(formatTable(t), '');
  if (result.targets.length > 0) {
    out.push('## targets');
    for (const t of result.targets) {
      const verdict = t.met === undefined ? 'n/a ' : t.met ? 'MET ' : 'MISS';
      out.push(`[${verdict}] ${t.what}: ${t.measured} (target ${t.target})`);
    }
    out.push('');
  }
  for (const n of result.notes) out.push(`note: ${n}`);
  return out.join('\n');
}

/** Runs one part, timing it; a part that throws is reported, not fatal to the others. */
export async function timed(part: string, body: () => Promise<Omit<PartResult, 'part' | 'seconds'>>): Promise<PartResult> {
  const started = performance.now();
  try {
    const r = await body();
    return { part, ...r, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    return { part, tables: [], targets: [], notes: [`FAILED: ${message}`], seconds: (performance.now() - started) / 1000 };
  }
}

export function ms(v: number, digits = 2): string {
  return Number.isFinite(v) ? `${v.toFixed(digits)} ms` : 'n/a';
}
