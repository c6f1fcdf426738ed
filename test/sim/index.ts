/**
 * The backend simulator used by tests and benchmarks: a programmable fake
 * llama.cpp llama-server, vLLM or Ollama, in-process on 127.0.0.1. See README.md.
 */
export { startSimulator } from './simulator.js';
export { COMPACTION_MARKER, COMPACTION_SUMMARY } from './script.js';
export { DEFAULT_LLAMA_MODEL, DEFAULT_OLLAMA_MODEL, DEFAULT_VLLM_MODEL } from './sim-state.js';
export { fixturePath } from './fixtures-dir.js';
export type {
  LlamaBuild,
  ParsedRequest,
  RecordedRequest,
  RouterEvent,
  RouterModelOptions,
  RouterOptions,
  Script,
  ScriptContext,
  ScriptFn,
  ScriptToolUse,
  SimFlavor,
  SimStats,
  Simulator,
  SimulatorOptions,
  Turn,
} from './types.js';
