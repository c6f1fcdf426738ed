/**
 * Vitest global setup: the run's temp files go to one folder of its own, removed when the run ends. Tests, the
 * servers and Claude Code sessions they start, and git all make temp folders (about a thousand a run); a run that
 * left them in the shared /tmp filled it, and a test's made-up path could meet another run's leftover there.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Short: sandbox sockets live a few folders below it, and a Unix socket path holds at most 107 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'la-t-'));
  // As open as /tmp itself (sticky, everyone's): tests run commands as another user (uid 65534) under it.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
