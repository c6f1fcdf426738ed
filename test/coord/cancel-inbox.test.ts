/**
 * Issue 29: the cancel inbox cleans up after itself. A request nobody will
 * answer (older than STALE_REQUEST_MS: its job's owner is gone, or it was
 * forged) is removed when an owner looks at the inbox; only plain files named
 * like a job id, judged by lstat, so a symbolic link (and what it points at),
 * a folder, a fresh request and anything of another name stay.
 */
import { existsSync, lstatSync, lutimesSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cancelInbox, STALE_REQUEST_MS, takeCancelRequests } from '../../src/coord/cancel-requests.js';
import { newJobId } from '../../src/jobs/record/job-id.js';

describe('the cancel inbox', () => {
  it('removes a stale forged request, and leaves a symbolic link, a folder, a fresh request and other names alone', async () => {
    const state = mkdtempSync(join(tmpdir(), 'i29-inbox-'));
    const inbox = cancelInbox(state);
    mkdirSync(inbox, { recursive: true });
    const old = new Date(Date.now() - STALE_REQUEST_MS - 60_000);
    const outside = join(state, 'precious.txt');
    writeFileSync(outside, 'keep me\n');
    const names = { stale: newJobId(), link: newJobId(), folder: newJobId(), fresh: newJobId(), mine: newJobId() };
    writeFileSync(join(inbox, names.stale), 'forged\n');
    utimesSync(join(inbox, names.stale), old, old);
    symlinkSync(outside, join(inbox, names.link));
    lutimesSync(join(inbox, names.link), old, old);
    utimesSync(outside, old, old);
    mkdirSync(join(inbox, names.folder));
    utimesSync(join(inbox, names.folder), old, old);
    writeFileSync(join(inbox, names.fresh), 'asked just now\n');
    writeFileSync(join(inbox, 'notes.txt'), 'not a request\n');
    utimesSync(join(inbox, 'notes.txt'), old, old);
    writeFileSync(join(inbox, names.mine), 'for the owner\n');

    expect(await takeCancelRequests(state, new Set([names.mine]))).toEqual([names.mine]);

    expect(existsSync(join(inbox, names.stale))).toBe(false);
    expect(existsSync(join(inbox, names.mine))).toBe(false); // taken: answered
    expect(lstatSync(join(inbox, names.link)).isSymbolicLink()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe('keep me\n');
    expect(lstatSync(join(inbox, names.folder)).isDirectory()).toBe(true);
    expect(existsSync(join(inbox, names.fresh))).toBe(true);
    expect(existsSync(join(inbox, 'notes.txt'))).toBe(true);
  });

  it('never cleans through an inbox that is itself a symbolic link', async () => {
    const state = mkdtempSync(join(tmpdir(), 'i29-inbox-'));
    const elsewhere = join(state, 'elsewhere');
    mkdirSync(elsewhere);
    const stale = join(elsewhere, newJobId());
    writeFileSync(stale, 'not ours\n');
    const old = new Date(Date.now() - STALE_REQUEST_MS - 60_000);
    utimesSync(stale, old, old);
    mkdirSync(join(state, 'coord'));
    symlinkSync(elsewhere, cancelInbox(state));

    expect(await takeCancelRequests(state, new Set(['20261129-111500-7gk2mq4xrz9d']))).toEqual([]);
    expect(existsSync(stale)).toBe(true);
  });
});
