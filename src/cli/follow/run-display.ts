/**
 * The three ways `localagents run` shows a job while it runs: a redrawn status
 * area on a terminal, one plain line per event on a pipe, or nothing but the
 * start line (--no-follow, --json). All write through the Terminal.
 */
import type { JobStatus } from '../../jobs/record/job-record.js';
import { printableLines } from '../../printable.js';
import { createInFlightNotes } from './in-flight-notes.js';
import type { Terminal } from '../output.js';
import type { JobSnapshot } from '../../jobs/view/job-follow.js';
import { createStatusArea, fitLine, HIDE_CURSOR, SHOW_CURSOR } from './status-area.js';
import { statusLines } from './status-lines.js';

export interface RunDisplay {
  update(snapshot: JobSnapshot): void;
  /** A line from us (a log line, an answer to Ctrl-C), shown above the status area. */
  note(text: string): void;
  /** Takes the status area away (before a question, when detaching, at the end). */
  pause(): void;
}

export function ttyDisplay(term: Terminal, now: () => Date = () => new Date()): RunDisplay {
  const area = createStatusArea((t) => term.write(t), () => term.columns());
  let frame = 0;
  let last: JobSnapshot | undefined;
  let hidden = false;
  return {
    update(snapshot) {
      if (!hidden) {
        term.write(HIDE_CURSOR);
        hidden = true;
      }
      last = snapshot;
      // Transcript lines are clipped to one row each (the full text is in transcript.txt); our own notes are not.
      const lines = snapshot.lines.map((l) => fitLine(printableLines(l), term.columns()));
      area.draw(lines, statusLines(snapshot.record, snapshot.lastRequest, now(), frame++));
    },
    note(text) {
      if (last && hidden) area.draw([text], statusLines(last.record, last.lastRequest, now(), frame));
      else term.write(`${text}\n`);
    },
    pause() {
      area.clear();
      if (hidden) term.write(SHOW_CURSOR);
      hidden = false;
      last = undefined;
    },
  };
}

export function plainDisplay(term: Terminal): RunDisplay {
  let status: JobStatus | undefined;
  let position: number | undefined;
  const notes = createInFlightNotes();
  return {
    update({ record, lines }) {
      for (const line of lines) term.write(`${printableLines(line)}\n`);
      for (const line of notes.lines(record)) term.write(`${line}\n`);
      if (record.status !== status || record.queue?.position !== position) {
        status = record.status;
        position = record.queue?.position;
        const queue = record.queue ? ` (position ${record.queue.position}, waiting for ${record.queue.waiting_for})` : '';
        term.write(`${new Date().toISOString().slice(11, 19)} status: ${record.status}${queue}\n`);
      }
    },
    note: (text) => term.write(`${text}\n`),
    pause: () => undefined,
  };
}

export function quietDisplay(note: (text: string) => void): RunDisplay {
  return { update: () => undefined, note, pause: () => undefined };
}
