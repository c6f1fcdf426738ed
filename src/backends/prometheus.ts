/**
 * Minimal Prometheus text-format reader: enough for llama.cpp's `llamacpp:*`
 * and vLLM's `vllm:*` counters and gauges. Histograms are read as plain samples.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/;
const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, name, , labelText, rawValue] = match;
    if (name === undefined || rawValue === undefined) continue;
    const value = Number(rawValue);
    if (Number.isNaN(value)) continue;
    const labels: Record<string, string> = {};
    for (const l of (labelText ?? '').matchAll(LABEL)) {
      if (l[1] !== undefined && l[2] !== undefined) labels[l[1]] = l[2];
    }
    samples.push({ name, labels, value });
  }
  return samples;
}

/** Sum of every sample named `name` (or `name_total`, as prometheus_client appends it to counters). */
export function metricValue(samples: readonly Sample[], name: string): number | undefined {
  let found = false;
  let sum = 0;
  for (const s of samples) {
    if (s.name === name || s.name === `${name}_total`) {
      found = true;
      sum += s.value;
    }
  }
  return found ? sum : undefined;
}

/** name → summed value, for snapshots taken before and after a job. */
export function metricTotals(samples: readonly Sample[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const s of samples) totals[s.name] = (totals[s.name] ?? 0) + s.value;
  return totals;
}
