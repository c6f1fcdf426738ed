/**
 * Prompt progress of llama.cpp requests: while one of our requests is reading
 * its prompt, the server's /slots is read every second or so and the reading
 * slot's count is handed to the request's live progress ("12,000 of 60,000
 * tokens read"). llama.cpp answers /slots while it decodes (server-queue.cpp
 * yield_to_queue lets /slots and /metrics through), and says nothing on the
 * Messages stream until the first token.
 *
 * Polled only while a watched request of ours is in the prompt phase; one
 * bounded GET at a time per server and model. When /slots is off
 * (`--no-slots`), refused or unreadable, the server is left alone for a while
 * and nothing is said; when the tie to a slot is ambiguous (slot-tie.ts),
 * nothing is said either.
 */
import type { Endpoint } from '../../config/schema.js';
import { httpGet, parseJson } from '../../backends/http-get.js';
import type { RequestProgress } from './request-progress.js';
import { busySlots, tieSeats, type Seat } from './slot-tie.js';
import type { UpstreamPools } from '../upstream/upstream.js';

export interface PromptWatchOptions {
  /** Between two reads of /slots. */
  readonly intervalMs: number;
  /** A read that takes longer is dropped. */
  readonly timeoutMs: number;
  /** After /slots failed or is off, how long the server is left alone. */
  readonly offMs: number;
}

/** A second matches the live view's refresh; a 64-slot /slots is a few tens of kB. */
export const PROMPT_WATCH_DEFAULTS: PromptWatchOptions = { intervalMs: 1000, timeoutMs: 2000, offMs: 60_000 };

/** /slots of 64 slots is ~100 kB; with LLAMA_SERVER_SLOTS_DEBUG it carries every prompt, and is not read. */
const MAX_SLOTS_BODY = 1024 * 1024;

export interface WatchedRequest {
  /** The backend sent headers: on llama.cpp, the request holds a slot and its prompt is being read. */
  started(): void;
  leave(): void;
}

export interface PromptWatch {
  /** A /v1/messages request to a llama.cpp endpoint; `progress` when someone watches it. */
  enter(endpoint: Endpoint, servedModel: string, progress: RequestProgress | undefined): WatchedRequest;
}

interface SeatState extends Seat {
  readonly progress: RequestProgress | undefined;
}

interface Server {
  readonly url: string;
  readonly origin: string;
  readonly apiKey: string | undefined;
  readonly seats: Set<SeatState>;
  timer: NodeJS.Timeout | undefined;
  polling: boolean;
  /** performance.now() before which /slots is not asked again. */
  offUntil: number;
}

export function createPromptWatch(pools: UpstreamPools, options: PromptWatchOptions = PROMPT_WATCH_DEFAULTS): PromptWatch {
  const servers = new Map<string, Server>();
  // Every request enters: building the /slots URL each time was most of the shim's added CPU per small request (BENCHMARKS part 1).
  const serverOf = new Map<string, Server>();

  const someoneReading = (server: Server): boolean => [...server.seats].some((s) => s.watched && s.stage() === 'reading');

  const schedule = (server: Server): void => {
    if (server.timer !== undefined || server.polling || !someoneReading(server)) return;
    const wait = Math.max(options.intervalMs, server.offUntil - performance.now());
    server.timer = setTimeout(() => void poll(server), wait);
    server.timer.unref();
  };

  const poll = async (server: Server): Promise<void> => {
    server.timer = undefined;
    if (!someoneReading(server)) return;
    server.polling = true;
    try {
      const answer = await httpGet(server.url, {
        dispatcher: pools.pool(server.origin),
        signal: AbortSignal.timeout(options.timeoutMs),
        apiKey: server.apiKey,
        limit: MAX_SLOTS_BODY,
      });
      const slots = answer.status === 200 ? busySlots(parseJson(answer.text)) : undefined;
      if (slots === undefined) server.offUntil = performance.now() + options.offMs;
      else {
        for (const { seat, slot } of tieSeats(slots, [...server.seats])) {
          seat.idTask = slot.idTask;
          seat.progress?.promptRead(slot.read, slot.cached);
        }
      }
    } catch {
      server.offUntil = performance.now() + options.offMs; // unreachable, too slow, too big: progress is not worth pressing for
    } finally {
      server.polling = false;
    }
    schedule(server);
  };

  /** One per /slots URL (two spellings of one server share it); kept after its requests end: it remembers that /slots is off. */
  const serverFor = (endpoint: Endpoint, servedModel: string): Server => {
    const key = `${endpoint.base_url}\n${servedModel}`;
    const known = serverOf.get(key);
    if (known !== undefined) return known;
    const slotsUrl = new URL('/slots', endpoint.base_url);
    // The model picks the server behind a router-mode llama-server; a single-model server ignores it.
    slotsUrl.searchParams.set('model', servedModel);
    const url = slotsUrl.href;
    let server = servers.get(url);
    if (server === undefined) {
      server = { url, origin: slotsUrl.origin, apiKey: endpoint.apiKey, seats: new Set(), timer: undefined, polling: false, offUntil: 0 };
      servers.set(url, server);
    }
    serverOf.set(key, server);
    return server;
  };

  return {
    enter(endpoint, servedModel, progress) {
      const home = serverFor(endpoint, servedModel);
      let started = false;
      const seat: SeatState = {
        progress,
        watched: progress !== undefined,
        idTask: undefined,
        stage: () => {
          if (!started) return 'waiting';
          if (progress === undefined) return 'busy';
          return progress.snapshot().phase === 'generating' ? 'generating' : 'reading';
        },
      };
      home.seats.add(seat);
      return {
        started() {
          started = true;
          schedule(home);
        },
        leave() {
          home.seats.delete(seat);
          if (home.seats.size > 0) return;
          clearTimeout(home.timer);
          home.timer = undefined;
        },
      };
    },
  };
}
