/** list_models: live view of every endpoint and the model menu; with `model`, whether that one is live (the original's request_model). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../app.js';
import { formatModelList } from '../../registry/format-model-list.js';
import { LISTING_FOR_MODEL, WORKFLOW_GUIDANCE } from '../guidance.js';
import { modelsOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput } from './args.js';
import { modelName } from './run-agent.js';

/** Is `model` live, and if not, the message to relay to the user; starts nothing. */
async function oneModel(app: App, model: string): Promise<CallToolResult> {
  const answer = await app.requestModel(model);
  const text = answer.available
    ? `${model} is live now: ${answer.live_on.map((p) => `${p.endpoint} → ${p.served_model}${p.context ? ` (context ${p.context})` : ''}`).join('; ')}. ` +
      `Use it with run_agent(model="${model}").`
    : `${answer.message}${answer.hint ? `\nhint: ${answer.hint}` : ''}`;
  return okResult(text, { ...answer });
}

export function registerListModels(server: McpServer, app: App): void {
  server.registerTool(
    'list_models',
    {
      title: 'List local models',
      description:
        'Probe the configured model servers now: what each serves, context, free slots, plus the models.yaml menu with notes. Call before run_agent. ' +
        'With model: whether it is live, else what to tell the user (localagents never starts models).',
      inputSchema: toolInput('list_models', { model: modelName().optional() }),
      outputSchema: modelsOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      if (args.model !== undefined) return oneModel(app, args.model);
      const listing = await app.listModels();
      return okResult(formatModelList(listing, LISTING_FOR_MODEL), { ...listing, next_steps: WORKFLOW_GUIDANCE });
    }),
  );
}
