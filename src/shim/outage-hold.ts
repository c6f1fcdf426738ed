/**
 * A job's server outage, as its route sees it: once a request finds the
 * endpoint down, loading or serving another model, every request of the job
 * waits here (probing with back-off) until the endpoint serves the job's model
 * again, or until `defaults.outage_wait_s` has passed since the outage began.
 * One wait per route: Claude Code's retries and token counts join it. With
 * defaults.failover, an outage past its grace also asks, at every probe, to move
 * the job to another endpoint; once it moves, the wait ends and the held requests go there.
 */
import { formatDuration } from '../amounts.js';
import type { EndpointProbe, ModelWeights, ServedModel } from '../backends/types.js';

/** What one look at the endpoint found, in words that follow its name ("gpu is loading its model"). */
export interface ServerLook {
  readonly serving: boolean;
  readonly saw: string;
  /** The served id that is the job's model, when serving. */
  readonly servedId?: string | undefined;
}

export type LookAtServer = () => Promise<ServerLook>;

/** One outage as the record keeps it. */
export interface OutageReport {
  readonly endpoint: string;
  readonly started_at: string;
  readonly ended_at: string;
  /** Every distinct thing the probes saw, in order (at most MAX_SEEN). */
  readonly saw: string[];
  readonly outcome: 'served again' | 'deadline passed' | 'job ended' | 'moved';
}

/** A try to move the job to another endpoint serving its model: moved (the route forwards there now), or why not. */
export type MoveAttempt = { readonly kind: 'moved'; readonly to: string; readonly servedId: string } | { readonly kind: 'stay'; readonly why: string };

/** defaults.failover: same_model, as the wait sees it. */
export interface OutageFailover {
  /** An outage this old (seconds) is a reason to move; tried at that moment, then at every probe. */
  readonly afterS: number;
  /** `since`: when the outage began; `saw`: what the last probe saw. */
  tryMove(since: string, saw: string): Promise<MoveAttempt>;
}

/** The wait going on now, for the live views. */
export interface OutageLive {
  readonly endpoint: string;
  readonly since: string;
  readonly saw: string;
  readonly wait_s: number;
}

export interface OutageEvents {
  /** The wait began or what the probe sees changed; undefined once it is over. */
  onLive(live: OutageLive | undefined): void;
  onEnd(report: OutageReport): void;
}

export type HoldOutcome = { readonly kind: 'serving'; readonly servedId: string | undefined } | { readonly kind: 'expired'; readonly message: string } | { readonly kind: 'gone' };

export interface RouteOutage {
  /** An outage is known: requests must wait before they are forwarded. */
  readonly active: boolean;
  /** Starts an outage (or notes what was seen in the one going on) and waits it out; no `saw`: join the one going on. */
  wait(saw: string | undefined, signal: AbortSignal): Promise<HoldOutcome>;
  /** One look at the endpoint now (after an answer that may mean an outage, such as a 503). */
  look(): Promise<ServerLook>;
  /**
   * Before a request: a look when the endpoint has not been seen serving the job's model for a while
   * (a model swapped between two requests fails none of them); undefined when it was seen just now.
   */
  recheck(): Promise<ServerLook | undefined>;
  /** The endpoint just answered a request of the job: it serves the job's model. */
  served(): void;
  /** A request was cut: the server may be restarting, so the next request looks first. */
  doubt(): void;
  /** The job ended: stop probing. */
  close(): void;
}

/** Probes after 0.5, 1, 2, 4, then every 5 s: a server that is back is used within 5 s, and a dead one costs one probe per 5 s. */
const FIRST_PROBE_MS = 500;
const MAX_PROBE_MS = 5000;
const MAX_SEEN = 10;
/**
 * A request that follows an answer within this is forwarded without a look: Claude Code's retries and
 * back-to-back requests. Anything after a tool call (seconds) is looked at first, one probe per request.
 */
const RECHECK_AFTER_MS = 2000;

/** "gpu is loading its model, 1 min 40 s so far; waiting up to 10 min". */
export function outageWords(live: OutageLive, now: Date = new Date()): string {
  const sofar = (now.getTime() - Date.parse(live.since)) / 1000;
  return `${live.endpoint} ${live.saw}, ${formatDuration(sofar)} so far; waiting up to ${formatDuration(live.wait_s)}`;
}

/** The job's model as its endpoint served it when the job was placed: the id, and the weights where the server said. */
export interface JobModel extends ModelWeights {
  readonly id: string;
}

/**
 * Words for other weights under the job's own id ("from /models/b.gguf now, not the job's model X from
 * /models/a.gguf"); undefined when they are the job's, or when the server does not say (the id decides). An id
 * the menu entry's glob accepts beside the job's is another quantisation by design: the menu decides.
 */
function otherWeights(served: ServedModel, job: JobModel): string | undefined {
  if (served.id !== job.id && !served.aliases.includes(job.id)) return undefined;
  if (job.file !== undefined && served.file !== undefined && served.file !== job.file) {
    return `serves ${served.id} from ${served.file} now, not the job's model ${job.id} from ${job.file}`;
  }
  if (job.fingerprint !== undefined && served.fingerprint !== undefined && served.fingerprint !== job.fingerprint) {
    return `serves ${served.id} with other weights now (${served.fingerprint}), not the job's model ${job.id} (${job.fingerprint})`;
  }
  return undefined;
}

/**
 * What a probe means for a job: serving only when the endpoint is up and one of its served ids (or aliases) is
 * the job's model by `sameModel`, on the weights the job started on where the server reports them.
 */
export function lookFromProbe(probe: EndpointProbe, job: JobModel, sameModel: (id: string) => boolean): ServerLook {
  if (probe.state === 'loading') return { serving: false, saw: 'is loading its model' };
  if (probe.state !== 'up') return { serving: false, saw: `is ${probe.state} (${probe.reason})` };
  const match = probe.models.find((m) => sameModel(m.id) || m.aliases.some(sameModel));
  if (match !== undefined) {
    const swapped = otherWeights(match, job);
    return swapped === undefined ? { serving: true, saw: `serves ${match.id}`, servedId: match.id } : { serving: false, saw: swapped };
  }
  const ids = probe.models.map((m) => m.id);
  return { serving: false, saw: `serves ${ids.length > 0 ? ids.join(', ') : 'no model'} now, not the job's model ${job.id}` };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves with the wait's outcome, or with `gone` when the request's own signal fires first. */
function orGone(wait: Promise<HoldOutcome>, signal: AbortSignal): Promise<HoldOutcome> {
  if (signal.aborted) return Promise.resolve({ kind: 'gone' });
  return new Promise((resolve) => {
    const onAbort = (): void => resolve({ kind: 'gone' });
    signal.addEventListener('abort', onAbort, { once: true });
    void wait.then((outcome) => {
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    });
  });
}

export function createRouteOutage(endpoint: string, waitS: number, look: LookAtServer, events: OutageEvents, failover?: OutageFailover): RouteOutage {
  const closed = new AbortController();
  let endpointName = endpoint; // another one once the job moved (failover)
  let stayedBecause: string | undefined; // why the last try to move found nowhere to go
  // since: the wall clock, for what is told; began: performance.now(), for how long (a clock set forward is not a wait).
  let current: { since: number; began: number; seen: string[]; saw: string; done: Promise<HoldOutcome> } | undefined;
  let expiredMessage: string | undefined;
  let lastServed = performance.now(); // the job was placed on a probe that saw its model

  const live = (o: { since: number; saw: string }): OutageLive => ({ endpoint: endpointName, since: new Date(o.since).toISOString(), saw: o.saw, wait_s: waitS });
  const see = (saw: string): void => {
    if (current === undefined || current.saw === saw) return;
    current.saw = saw;
    if (!current.seen.includes(saw) && current.seen.length < MAX_SEEN) current.seen.push(saw);
    events.onLive(live(current));
  };
  const end = (outcome: OutageReport['outcome']): void => {
    if (current === undefined) return;
    events.onEnd({ endpoint: endpointName, started_at: new Date(current.since).toISOString(), ended_at: new Date().toISOString(), saw: [...current.seen], outcome });
    events.onLive(undefined);
  };

  const probeLoop = async (since: number, began: number): Promise<HoldOutcome> => {
    let delay = FIRST_PROBE_MS;
    for (;;) {
      const left = began + waitS * 1000 - performance.now();
      const moveLeft = failover === undefined ? Infinity : began + failover.afterS * 1000 - performance.now();
      await sleep(Math.max(0, Math.min(delay, left, moveLeft > 0 ? moveLeft : Infinity)), closed.signal);
      if (closed.signal.aborted) {
        end('job ended');
        return { kind: 'gone' };
      }
      const seen = await look().catch((err: unknown): ServerLook => ({ serving: false, saw: `could not be probed (${err instanceof Error ? err.message : String(err)})` }));
      if (seen.serving) {
        lastServed = performance.now();
        end('served again');
        return { kind: 'serving', servedId: seen.servedId };
      }
      see(seen.saw);
      if (failover !== undefined && performance.now() - began >= failover.afterS * 1000) {
        const attempt = await failover.tryMove(new Date(since).toISOString(), seen.saw).catch((err: unknown): MoveAttempt => ({ kind: 'stay', why: `the move failed (${err instanceof Error ? err.message : String(err)})` }));
        if (attempt.kind === 'moved') {
          lastServed = performance.now();
          end('moved');
          endpointName = attempt.to;
          stayedBecause = undefined;
          return { kind: 'serving', servedId: attempt.servedId };
        }
        stayedBecause = attempt.why;
      }
      if (performance.now() - began >= waitS * 1000) {
        const seenList = current?.seen ?? [seen.saw];
        const stayed = stayedBecause === undefined ? '' : `; no other endpoint could take the job: ${stayedBecause}`;
        expiredMessage = `The model server '${endpointName}' did not serve the job's model again within defaults.outage_wait_s=${waitS} s (localagents held the job's requests since ${new Date(since).toISOString()}); it ${seenList.join(', then ')}${stayed}`;
        end('deadline passed');
        return { kind: 'expired', message: expiredMessage };
      }
      delay = Math.min(delay * 2, MAX_PROBE_MS);
    }
  };

  return {
    get active() {
      return current !== undefined || expiredMessage !== undefined;
    },
    wait(saw, signal) {
      if (expiredMessage !== undefined) return Promise.resolve({ kind: 'expired', message: expiredMessage });
      if (current === undefined) {
        const since = Date.now();
        const began = performance.now();
        const first = saw ?? 'was unavailable';
        const started = { since, began, seen: [first], saw: first, done: Promise.resolve<HoldOutcome>({ kind: 'gone' }) };
        current = started;
        events.onLive(live(started));
        started.done = probeLoop(since, began).finally(() => {
          if (current === started) current = undefined;
        });
      } else if (saw !== undefined) see(saw);
      return orGone(current.done, signal);
    },
    look,
    async recheck() {
      if (performance.now() - lastServed < RECHECK_AFTER_MS) return undefined;
      const seen = await look().catch(() => undefined); // a probe that fails to run is no reason to hold
      if (seen?.serving === true) lastServed = performance.now();
      return seen;
    },
    served() {
      lastServed = performance.now();
    },
    doubt() {
      lastServed = Number.NEGATIVE_INFINITY;
    },
    close() {
      closed.abort();
    },
  };
}
