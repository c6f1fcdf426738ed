/** The stages a self-test or a doctor check reports, in order, each told to the terminal as it ends. */
export interface Stage {
  readonly name: string;
  readonly ok: boolean;
  /** Passed, with something the user should act on (an optional platform piece is missing). */
  readonly warn?: boolean;
  readonly detail: string;
  readonly fixes: readonly string[];
}

export interface StageLog {
  readonly stages: readonly Stage[];
  /** Every stage so far passed (a warning passes). */
  readonly ok: boolean;
  pass(name: string, detail: string): void;
  warn(name: string, detail: string, fixes: readonly string[]): void;
  fail(name: string, detail: string, fixes?: readonly string[]): void;
  add(stage: Stage): void;
}

export function createStageLog(onStage?: (stage: Stage) => void): StageLog {
  const stages: Stage[] = [];
  const add = (stage: Stage): void => {
    stages.push(stage);
    onStage?.(stage);
  };
  return {
    stages,
    get ok() {
      return stages.every((s) => s.ok);
    },
    pass: (name, detail) => add({ name, ok: true, detail, fixes: [] }),
    warn: (name, detail, fixes) => add({ name, ok: true, warn: true, detail, fixes }),
    fail: (name, detail, fixes = []) => add({ name, ok: false, detail, fixes }),
    add,
  };
}
