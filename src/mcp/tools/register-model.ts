/** register_model: add or update a menu entry in models.local.yaml. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput } from './args.js';
import { modelName } from './run-agent.js';

export function registerRegisterModel(server: McpServer, app: App): void {
  server.registerTool(
    'register_model',
    {
      title: 'Register a menu model',
      description:
        'Add or update a model menu entry (a name the user and you talk about, with notes) in models.local.yaml, then list where it is live. ' +
        'Use to remember what the user told you about a model: where it runs, how to start it, what it is good at. Only name is required.',
      inputSchema: toolInput('register_model', {
        name: modelName().describe('Menu name, e.g. "qwen3.8-27b"; matched fuzzily against served ids.'),
        notes: z.string().optional().describe('What it is for and how to run it, e.g. "default mid-size coder; run with --reasoning on".'),
        host: z.string().optional(),
        tags: z.array(z.string().max(200)).max(100).optional().describe('Free-form labels shown with the entry, e.g. ["coder", "fast"].'),
        served_name: z.string().max(512).optional().describe('Exact served id or glob, when the menu name differs.'),
        endpoint: z.string().max(512).optional().describe('Endpoint it runs on, when fixed.'),
        context: z.number().int().min(1024).optional().describe('Fallback context window when the probe cannot tell.'),
        bring_up: z.string().optional().describe('The command that starts it, shown to the user when it is not running.'),
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
