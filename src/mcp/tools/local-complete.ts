/** local_complete: one-shot generation on a local model, no tools, no agent loop. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { DEFAULT_COMPLETE_MAX_TOKENS } from '../../jobs/session/local-complete.js';
import { guarded, okResult } from '../tool-result.js';
import { limitLines, limitsField, type LimitApplied, toolInput } from './args.js';
import { modelName } from './run-agent.js';

export function registerLocalComplete(server: McpServer, app: App): void {
  server.registerTool(
    'local_complete',
    {
      title: 'One-shot local completion',
      description:
        'Generate text once on a local model: summaries, drafts, classification, rewording. No tools, no files, no agent loop — use run_agent for work in the tree.',
      inputSchema: toolInput('local_complete', {
        prompt: z.string().min(1).max(2_000_000),
        model: modelName().optional().describe('Served id, glob, fuzzy or menu name (see list_models).'),
        endpoint: modelName().optional(),
        system: z.string().max(1_000_000).optional(),
        max_tokens: z.number().int().min(1).optional().describe(`Default ${DEFAULT_COMPLETE_MAX_TOKENS}; never more than the model's context window.`),
        temperature: z.number().min(0).max(2).optional(),
      }),
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
      const lowered: LimitApplied | undefined =
        args.max_tokens !== undefined && result.max_tokens < args.max_tokens
          ? { argument: 'max_tokens', asked: args.max_tokens, used: result.max_tokens, why: `${result.model} has a ${result.max_tokens}-token context window` }
          : undefined;
      return okResult([result.text, ...limitLines([lowered])].join('\n'), { ...result, ...limitsField([lowered]) });
    }),
  );
}
