/** What the numbers were measured on: printed above every run and stored with the JSON results. */
import { cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  readonly date: string;
  readonly node: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly load: readonly number[];
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    load: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.date} · Node ${m.node} · ${m.cpus} × ${m.cpuModel} · ${m.memoryGiB} GiB · load average ${m.load.join(' ')}`;
}
