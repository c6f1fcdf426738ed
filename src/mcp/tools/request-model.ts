/** request_model: is this model live, and if not, what to tell the user. Starts nothing. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput } from './args.js';
import { modelName } from './run-agent.js';

export function registerRequestModel(server: McpServer, app: App): void {
  server.registerTool(
    'request_model',
    {
      title: 'Ask for a model',
      description:
        'Say whether a model (menu name, served id, glob or fuzzy name) is live now and where; if it is not, return the message to relay to the user ' +
        '(host, notes, start command) — the same as run_agent\'s model_unavailable — without starting a job. localagents never starts models.',
      inputSchema: toolInput('request_model', {
        model: modelName().describe('Menu name, served id, glob or fuzzy name (see list_models).'),
      }),
      outputSchema: z.looseObject({ model: z.string(), available: z.boolean() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const answer = await app.requestModel(args.model);
      const text = answer.available
        ? `${args.model} is live now: ${answer.live_on.map((p) => `${p.endpoint} → ${p.served_model}${p.context ? ` (context ${p.context})` : ''}`).join('; ')}. ` +
          `Use it with run_agent(model="${args.model}").`
        : `${answer.message}${answer.hint ? `\nhint: ${answer.hint}` : ''}`;
      return okResult(text, { ...answer });
    }),
  );
}
