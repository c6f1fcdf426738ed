/**
 * One problem found in a config file, and how problems are shown to the user:
 * `models.yaml:12: endpoints.gpu.baseurl: unknown key — did you mean base_url?`.
 * Owns the text layout only; finding problems is validate-file.ts's job.
 */
import { ConfigError } from '../errors.js';

export type KeyPath = readonly (string | number)[];

export interface ConfigIssue {
  /** The file as the user named it (or as we found it). */
  readonly file: string;
  /** 1-based line, when the problem has a place in the file. */
  readonly line: number | undefined;
  /** Dotted key path, e.g. `endpoints.gpu.base_url`; undefined for the file as a whole. */
  readonly key: string | undefined;
  readonly message: string;
}

const PLAIN_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** `['endpoints', 'gpu', 'env', 'A']` → `endpoints.gpu.env.A`; odd names are quoted so the path stays readable. */
export function formatKeyPath(path: KeyPath): string | undefined {
  if (path.length === 0) return undefined;
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_SEGMENT.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** One line: `file:line: key: message`, leaving out the parts that are unknown. */
export function formatIssue(issue: ConfigIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`;
  const key = issue.key === undefined ? '' : `${issue.key}: `;
  return `${where}: ${key}${issue.message}`;
}

/** Issues in reading order: by file (first seen first), then by line. */
export function sortIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const fileOrder = new Map<string, number>();
  for (const issue of issues) if (!fileOrder.has(issue.file)) fileOrder.set(issue.file, fileOrder.size);
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (fileOrder.get(a.issue.file) ?? 0) - (fileOrder.get(b.issue.file) ?? 0) ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}

const DEFAULT_HINT = 'Fix the line(s) named above; models.example.yaml shows every key with a comment.';

/** All issues in one ConfigError, one per line; file/line/key are those of the first. */
export function configErrorFromIssues(issues: readonly ConfigIssue[], hint: string = DEFAULT_HINT): ConfigError {
  const sorted = sortIssues(issues);
  const first = sorted[0];
  if (first === undefined) throw new RangeError('configErrorFromIssues needs at least one issue');
  const options: { line?: number; key?: string; hint: string; details: { issues: ConfigIssue[] } } = {
    hint,
    details: { issues: sorted },
  };
  if (first.line !== undefined) options.line = first.line;
  if (first.key !== undefined) options.key = first.key;
  return new ConfigError(first.file, sorted.map(formatIssue).join('\n'), options);
}
