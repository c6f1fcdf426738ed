/**
 * The models.yaml `localagents init` writes: the servers it found as
 * endpoints, the rest as comments a person can uncomment. Written only where
 * nothing exists yet (never overwrites).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LocalAgentsError, isErrno } from '../errors.js';
import type { BackendKind } from './schema.js';

/** A server `localagents init` found on a local port (src/backends/detect.ts finds them). */
export interface FoundServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly backend: BackendKind;
  readonly models: readonly string[];
}

function endpointName(server: FoundServer): string {
  return `${server.backend === 'llama.cpp' ? 'llama' : server.backend}-${server.port}`;
}

export function initFileText(found: readonly FoundServer[], now: Date = new Date()): string {
  const lines = [
    `# models.yaml, written by \`localagents init\` on ${now.toISOString().slice(0, 10)}. Read again on every call: edit freely.`,
    '# Every key is explained in models.example.yaml in the localagents repository; `localagents doctor` checks this file.',
    '',
  ];
  if (found.length === 0) {
    lines.push(
      '# No model server answered on the usual local ports (8080 llama-server, 8000 vLLM, 11434 Ollama, 1234 LM Studio, 30000 SGLang).',
      '# Start one, then uncomment and adjust an endpoint below (base_url may point at another machine: http://gpu-box:8080).',
      'endpoints: {}',
      '# endpoints:',
      '#   gpu:',
      '#     base_url: http://127.0.0.1:8080   # llama-server --jinja --slots --metrics -c 262144 --parallel 2',
      '#     backend: llama.cpp                # or vllm (vllm serve … --enable-auto-tool-choice --tool-call-parser …)',
    );
  } else {
    lines.push('endpoints:');
    for (const server of found) {
      lines.push(`  ${endpointName(server)}:${server.models.length ? `   # serving ${server.models.join(', ')}` : ''}`, `    base_url: ${server.baseUrl}`, `    backend: ${server.backend}`);
    }
  }
  lines.push(
    '',
    '# The model menu: what you can start, so localagents can say where and how when a model is not running.',
    '# models:',
    '#   qwen3.8-27b:',
    '#     notes: default mid-size coder',
    '#     bring_up: llama-server -hf unsloth/Qwen3.8-27B-GGUF:UD-Q4_K_XL --jinja --slots --metrics -c 262144 --parallel 2',
    '',
    '# defaults:',
    '#   model: qwen3.8-27b          # used when a job names no model',
    '#   permission_mode: acceptEdits',
    '',
  );
  return lines.join('\n');
}

/** Writes `text` at `path` unless a file is already there. */
export async function writeNewConfig(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, text, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if (isErrno(err, 'EEXIST')) {
      throw new LocalAgentsError('bad_argument', `${path} already exists; localagents init never overwrites a config`, { hint: 'Edit it by hand, or check it with localagents doctor.', details: { path } });
    }
    throw err;
  }
}
