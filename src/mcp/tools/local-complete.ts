/** local_complete: one-shot generation on a local model, no tools, no agent loop. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { guarded, okResult } from '../tool-result.js';

export function registerLocalComplete(server: McpServer, app: App): void {
  server.registerTool(
    'local_complete',
    {
      title: 'One-shot local completion',
      description:
        'Generate text once on a local model: summaries, drafts, classification, rewording. No tools, no files, no agent loop — use run_agent for work in the tree.',
      inputSchema: {
        prompt: z.string().min(1).max(2_000_000),
        model: z.string().min(1).optional().describe('Served id, glob, fuzzy or menu name (see list_models).'),
        endpoint: z.string().min(1).optional(),
        system: z.string().optional(),
        max_tokens: z.number().int().min(1).max(262_144).optional().describe('Default 1024.'),
        temperature: z.number().min(0).max(2).optional(),
      },
      outputSchema: z.looseObject({ text: z.string(), stop_reason: z.string().nullable(), usage: z.looseObject({}), model: z.string(), endpoint: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const result = await app.complete({
        prompt: args.prompt,
        model: args.model,
        endpoint: args.endpoint,
        system: args.system,
        maxTokens: args.max_tokens,
        temperature: args.temperature,
      });
      return okResult(result.text, { ...result });
    }),
  );
}
