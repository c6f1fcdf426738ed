/** list_models: live view of every endpoint and the model menu. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { formatModelList } from '../../registry/format-model-list.js';
import { LISTING_FOR_MODEL, WORKFLOW_GUIDANCE } from '../guidance.js';
import { modelListOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { toolInput } from './args.js';

export function registerListModels(server: McpServer, app: App): void {
  server.registerTool(
    'list_models',
    {
      title: 'List local models',
      description:
        'Probe every configured llama.cpp / vLLM endpoint now and list what each actually serves: health (host up/down told apart from the server), ' +
        'served model ids, per-request context window and where it came from, slots busy/free, queue, warnings — plus the model menu from models.yaml ' +
        'with notes and where each entry is live. Call this before run_agent to pick a model; if what you need is not running, relay the notes to the user ' +
        '(localagents never starts models).',
      inputSchema: toolInput('list_models', {}),
      outputSchema: modelListOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    () => guarded(async () => {
      const listing = await app.listModels();
      return okResult(formatModelList(listing, LISTING_FOR_MODEL), { ...listing, next_steps: WORKFLOW_GUIDANCE });
    }),
  );
}
