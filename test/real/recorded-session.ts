/**
 * The recorded Claude Code session the template matrix replays (made by test/real/record-session.ts; its README
 * says with which Claude Code and when), read in order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_DIR = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'session-thinking-image-compaction');

export interface RecordedRequest {
  readonly file: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

export function recordedSession(): RecordedRequest[] {
  return readdirSync(SESSION_DIR)
    .filter((f) => /^req-\d+\.json$/.test(f))
    .sort()
    .map((file) => {
      // The capture format is ours (record-session.ts): a reason to trust the shape.
      const record = JSON.parse(readFileSync(join(SESSION_DIR, file), 'utf8')) as Omit<RecordedRequest, 'file'>;
      return { file, url: record.url, headers: record.headers, body: record.body };
    });
}
