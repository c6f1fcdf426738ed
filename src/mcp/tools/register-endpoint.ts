/** register_endpoint: add or update an endpoint in models.local.yaml, then probe it. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { BACKENDS } from '../../config/schema.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput } from './args.js';

/** The original sent "" for an unset host or notes and dropped it; so do we. */
const unlessEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

export function registerRegisterEndpoint(server: McpServer, app: App): void {
  server.registerTool(
    'register_endpoint',
    {
      title: 'Register an endpoint',
      description:
        'Add or update a model server in the sidecar models.local.yaml next to models.yaml (the hand-written file is never changed), then probe it and return what it serves. ' +
        'Use when the user tells you about a server that is not in list_models. Endpoints defined in models.yaml cannot be replaced, and api_key_env may only name a ' +
        'variable models.yaml already sends to the same host (or one listed in defaults.allowed_key_env).',
      inputSchema: toolInput('register_endpoint', {
        name: z.string().max(200).regex(/^[A-Za-z0-9._-]+$/).describe('Endpoint name, e.g. "gpu1".'),
        base_url: z.string().max(2048).describe('Server root, e.g. http://gpu1:8080 (no /v1).'),
        backend: z.enum(BACKENDS).optional().describe(`${BACKENDS.join(', ')}; default llama.cpp. Decides how the server is probed.`),
        host: z.string().optional().describe('Machine name shown when asking the user to start something.'),
        notes: z.string().optional(),
        api_key_env: z
          .string()
          .optional()
          .describe('Name of the environment variable holding the key (never the key itself): one models.yaml already uses for this host, or listed in its defaults.allowed_key_env.'),
        max_jobs: z.number().int().min(1).max(256).optional().describe('Concurrent jobs allowed (default: probed slots, or 4 for vLLM).'),
      }),
      outputSchema: z.looseObject({ sidecar: z.string(), entry: z.looseObject({ base_url: z.string() }), probe: z.looseObject({ state: z.string(), reason: z.string() }) }),
      // Open world: it sends requests to whatever host the call names.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ name, backend, host, notes, ...entry }) => guarded(async () => {
      const result = await app.registerEndpoint(name, { ...entry, host: unlessEmpty(host), notes: unlessEmpty(notes), backend: backend ?? 'llama.cpp' });
      const served = result.probe.models.map((m) => m.id).join(', ') || 'nothing';
      return okResult(`Wrote endpoint ${name} to ${result.sidecar}. Probe: ${result.probe.state} — ${result.probe.reason}. Serving: ${served}.`, { ...result });
    }),
  );
}
