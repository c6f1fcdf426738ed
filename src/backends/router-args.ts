/**
 * What a router-mode llama-server's command line for one model says before the model is loaded: `GET /models`
 * lists each model's `status.args` (the child's argv, long option names: server-models.cpp `update_args`,
 * common/preset.cpp `to_args`). The per-slot window follows the same rules as a plain server (docs/backends.md §3):
 * `--ctx-size` rounded up to 256, divided by an explicit `--parallel` unless the KV cache is unified, the quotient
 * rounded up to 256 (src/llama-context.cpp); an automatic `--parallel` means 4 slots on a unified cache. The
 * model's training context may cap it further, which only the loaded model says: an estimate until then.
 */

export interface ArgsWindow {
  /** Per-slot window in tokens. */
  readonly context: number;
  /** Slots the child will have. */
  readonly slots: number;
}

/** Slots llama-server picks when `--parallel` is left automatic (tools/server/server.cpp). */
const AUTO_SLOTS = 4;

const pad256 = (n: number): number => Math.ceil(n / 256) * 256;

/** The value after the last occurrence of any of `names` (the last one wins, as in llama.cpp's parser). */
function lastValue(args: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const eq = a.indexOf('=');
    if (eq > 0 && names.includes(a.slice(0, eq))) value = a.slice(eq + 1);
    else if (names.includes(a)) value = args[i + 1];
  }
  return value;
}

function lastFlag(args: readonly string[], on: readonly string[], off: readonly string[]): boolean | undefined {
  let flag: boolean | undefined;
  for (const a of args) {
    if (on.includes(a)) flag = true;
    else if (off.includes(a)) flag = false;
  }
  return flag;
}

const wholeNumber = (text: string | undefined): number | undefined => {
  if (text === undefined || !/^-?\d{1,9}$/.test(text)) return undefined;
  return Number(text);
};

/** The slots `args` give the child, and whether they share one unified cache. */
export function slotsFromArgs(args: readonly string[]): { slots: number; unified: boolean } {
  const parallel = wholeNumber(lastValue(args, ['--parallel', '-np']));
  const auto = parallel === undefined || parallel < 0;
  const slots = auto ? AUTO_SLOTS : Math.max(1, parallel);
  return { slots, unified: lastFlag(args, ['--kv-unified', '-kvu'], ['--no-kv-unified', '-no-kvu']) ?? auto };
}

/** The per-slot window and slot count `args` give, or undefined when the context comes from the model file (no or zero `--ctx-size`). */
export function windowFromArgs(args: readonly string[]): ArgsWindow | undefined {
  const ctx = wholeNumber(lastValue(args, ['--ctx-size', '-c']));
  if (ctx === undefined || ctx <= 0) return undefined;
  const { slots, unified } = slotsFromArgs(args);
  const total = pad256(ctx);
  return { context: unified ? total : pad256(Math.floor(total / slots)), slots };
}
