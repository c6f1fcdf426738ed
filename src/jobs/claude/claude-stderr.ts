/**
 * Lines Claude Code writes to stderr that are not problems: kept out of job
 * transcripts, where a reader would take them for errors.
 */
const HARMLESS: readonly RegExp[] = [
  // Any model id Claude Code does not know (every local model) gets this diagnostic; the session works.
  /^\[claude-code:unrecognized_model\]/,
];

export function isHarmlessStderr(line: string): boolean {
  return HARMLESS.some((pattern) => pattern.test(line.trim()));
}
