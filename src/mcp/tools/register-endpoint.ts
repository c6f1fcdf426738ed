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
        'Add or update a model server in models.local.yaml (models.yaml itself is never changed), then probe it. For a server the user names that list_models lacks.',
      inputSchema: toolInput('register_endpoint', {
        name: z.string().max(200).regex(/^[A-Za-z0-9._-]+$/).describe('e.g. "gpu1"'),
        base_url: z.string().max(2048).describe('e.g. http://gpu1:8080'),
        backend: z.enum(BACKENDS).optional(),
        host: z.string().optional(),
        notes: z.string().optional(),
        api_key_env: z
          .string()
          .optional()
          .describe('Env variable holding the key (never the key): one models.yaml sends to this host or allows.'),
        max_jobs: z.number().int().min(1).max(256).optional(),
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
