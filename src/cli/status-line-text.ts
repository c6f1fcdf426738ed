/** The status line's one line of text from its facts; empty when there is nothing to say. Pure. */
import { usd } from '../usage/format-usage.js';
import type { StatusFacts } from '../usage/status-facts.js';

function jobsPart(kind: string, n: { here: number; elsewhere: number }): string | undefined {
  if (n.here + n.elsewhere === 0) return undefined;
  if (n.elsewhere === 0) return `${n.here} ${kind} here`;
  if (n.here === 0) return `${n.elsewhere} ${kind} elsewhere`;
  return `${n.here} ${kind} here (+${n.elsewhere} elsewhere)`;
}

function openPart(facts: StatusFacts): string | undefined {
  const r = facts.open;
  if (r === undefined) return undefined;
  const perS = r.phase === 'generating' ? r.tokens_per_s : r.phase === 'reading the prompt' ? r.prompt_read_per_s : undefined;
  return `${r.phase}${perS === undefined ? '' : ` at ${Math.round(perS)} tok/s`}`;
}

export function statusLineText(facts: StatusFacts): string {
  const parts = [jobsPart('running', facts.running), jobsPart('queued', facts.queued), openPart(facts)];
  const net = facts.today.netUsd === undefined ? '' : `, net saved ${usd(facts.today.netUsd)} (computed)`;
  if (facts.today.jobs > 0) parts.push(`today ${facts.today.jobs} job${facts.today.jobs === 1 ? '' : 's'}${net}`);
  const said = parts.filter((p) => p !== undefined);
  return said.length === 0 ? '' : `localagents: ${said.join(' · ')}`;
}
