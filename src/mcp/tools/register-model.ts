/** register_model: add or update a menu entry in models.local.yaml. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput, wholeNumber } from './args.js';
import { modelName } from './run-agent.js';

export function registerRegisterModel(server: McpServer, app: App): void {
  server.registerTool(
    'register_model',
    {
      title: 'Register a menu model',
      description: 'Add or update a models.yaml menu entry in models.local.yaml: what the user told you about a model (what it is for, where and how it runs).',
      inputSchema: toolInput('register_model', {
        name: modelName(),
        notes: z.string().optional(),
        host: z.string().optional(),
        tags: z.array(z.string().max(200)).max(100).optional(),
        served_name: z.string().max(512).optional().describe('Served id or glob, if not the name.'),
        endpoint: z.string().max(512).optional(),
        context: wholeNumber(1024).optional(),
        bring_up: z.string().optional().describe('Command that starts it.'),
      }),
      outputSchema: z.looseObject({ sidecar: z.string(), entry: z.looseObject({ notes: z.string() }), live_on: z.array(z.string()) }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ name, notes, host, tags, served_name, endpoint, context, bring_up }) => guarded(async () => {
      // The original dropped empty values ("" for an unset field, [] for no tags) instead of writing them.
      const given = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
      const result = await app.registerModel(name, {
        notes: given(notes),
        host: given(host),
        tags: tags && tags.length > 0 ? tags : undefined,
        served_name: given(served_name),
        endpoint: given(endpoint),
        context,
        bring_up: given(bring_up?.trim()),
      });
      const liveOn = result.listing.menu.find((m) => m.name === name)?.live_on ?? [];
      return okResult(
        `Wrote menu entry ${name} to ${result.sidecar}. ${liveOn.length > 0 ? `Live on ${liveOn.join(', ')}.` : 'Not running anywhere right now.'}`,
        { sidecar: result.sidecar, entry: result.entry, live_on: liveOn },
      );
    }),
  );
}
