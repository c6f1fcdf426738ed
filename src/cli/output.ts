/**
 * The CLI's only door to the terminal. Everything else in src/ writes to the
 * logger (stderr) or returns data.
 */
export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printError(message: string, hint?: string): void {
  process.stderr.write(`error: ${message}\n${hint ? `${hint}\n` : ''}`);
}
