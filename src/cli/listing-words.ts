/** The model listing's advice for a person at a terminal: the commands, not the tools. */
import type { ListingWords } from '../registry/format-model-list.js';

const PERSON_NEXT_STEPS =
  'To delegate a task: localagents run --model NAME "the task" from the project to work on, or ask Claude in Claude Code to delegate it to a local model. ' +
  "Treat the local model's work as a draft: review the files it touched (localagents diff JOB for worktree jobs) before relying on it.";

export const LISTING_FOR_PERSON: ListingWords = {
  serverCwd: 'default folder for jobs',
  noEndpoints: 'No endpoints configured. Run localagents init to find local servers and write models.yaml, or add one by hand (see models.example.yaml).',
  nextSteps: PERSON_NEXT_STEPS,
  agents: 'agents (localagents run --agent NAME):',
};
