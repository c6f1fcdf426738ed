/**
 * Which llama.cpp slot is reading which of our requests' prompts, from one
 * /slots answer. The Messages route takes no field that /slots echoes back:
 * llama.cpp's Anthropic converter passes on only temperature, top_p, top_k,
 * stream and chat_template_kwargs (server-chat.cpp
 * server_chat_convert_anthropic_to_oai), so `id_slot` and `seed` never reach
 * the task. A slot is therefore tied to a request only when nothing else fits:
 * every busy slot is one of our open requests, exactly one busy slot is still
 * reading a prompt, and exactly one of our requests can be the one reading.
 * Once tied, the slot's `id_task` (one per task, never reused while the server
 * runs) follows the request. Anything less certain is left unsaid.
 *
 * What /slots says per slot (server-context.cpp server_slot::to_json):
 * `is_processing`; `id_task`; `n_prompt_tokens_cache`, the prefix reused from
 * the cache; `n_prompt_tokens_processed`, prompt tokens evaluated so far (it
 * grows a batch at a time); `next_token[0].n_decoded`, tokens generated (0
 * while the prompt is read).
 */
import { z } from 'zod';

const slotsBody = z.array(
  z.looseObject({
    is_processing: z.boolean(),
    id_task: z.number().optional(),
    n_prompt_tokens_processed: z.number().optional(),
    n_prompt_tokens_cache: z.number().optional(),
    next_token: z.array(z.looseObject({ n_decoded: z.number().optional() })).optional(),
  }),
);

export interface BusySlot {
  readonly idTask: number | undefined;
  /** Prompt tokens in the slot's cache so far, the reused prefix included. */
  readonly read: number;
  readonly cached: number;
  readonly reading: boolean;
}

/** The busy slots of a /slots answer; undefined when it is not one. */
export function busySlots(json: unknown): BusySlot[] | undefined {
  const parsed = slotsBody.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data
    .filter((s) => s.is_processing)
    .map((s) => {
      const cached = s.n_prompt_tokens_cache ?? 0;
      return {
        idTask: s.id_task,
        read: cached + (s.n_prompt_tokens_processed ?? 0),
        cached,
        reading: s.id_task !== undefined && s.next_token?.[0]?.n_decoded === 0,
      };
    });
}

/** One of our open requests on the server, as the tie sees it. */
export interface Seat {
  /**
   * waiting: no slot yet (no headers); reading / generating: a watched request's phase;
   * busy: holds a slot, phase not watched (a request nobody observes).
   */
  stage(): 'waiting' | 'reading' | 'generating' | 'busy';
  /** Watched requests only: the slot reading its prompt. */
  readonly watched: boolean;
  /** The task of the slot tied to this request, once tied. */
  idTask: number | undefined;
}

/** The seats whose prompt reading this answer shows, each with its slot (new ties included). */
export function tieSeats<S extends Seat>(slots: readonly BusySlot[], seats: readonly S[]): Array<{ seat: S; slot: BusySlot }> {
  const found: Array<{ seat: S; slot: BusySlot }> = [];
  const tiedTasks = new Set<number>();
  for (const seat of seats) {
    if (seat.idTask === undefined) continue;
    tiedTasks.add(seat.idTask);
    const slot = slots.find((s) => s.idTask === seat.idTask);
    if (slot?.reading === true) found.push({ seat, slot });
  }
  const seated = seats.filter((s) => s.stage() !== 'waiting');
  // Another client's request holds a slot (or ours and the server disagree for a moment): no new tie.
  if (slots.length !== seated.length) return found;
  const freeSlots = slots.filter((s) => s.reading && s.idTask !== undefined && !tiedTasks.has(s.idTask));
  const candidates = seated.filter((s) => s.idTask === undefined && (s.stage() === 'reading' || s.stage() === 'busy'));
  const [slot] = freeSlots;
  const [seat] = candidates;
  if (freeSlots.length === 1 && candidates.length === 1 && slot !== undefined && seat?.watched === true) found.push({ seat, slot });
  return found;
}
