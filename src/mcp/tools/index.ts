/** Every MCP tool, registered in the order a caller uses them. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { countingCallerBytes, type CallerPlace } from '../caller-bytes.js';
import { registerCancelJob } from './cancel-job.js';
import { registerJobLog } from './job-log.js';
import { registerJobStatus } from './job-status.js';
import { registerListJobs } from './list-jobs.js';
import { registerListModels } from './list-models.js';
import { registerLocalComplete } from './local-complete.js';
import { registerRegisterEndpoint } from './register-endpoint.js';
import { registerRegisterModel } from './register-model.js';
import { registerRequestModel } from './request-model.js';
import { registerRunAgent } from './run-agent.js';
import { registerWaitJob } from './wait-job.js';

export const TOOL_REGISTRARS = [
  registerListModels,
  registerRequestModel,
  registerRunAgent,
  registerWaitJob,
  registerJobStatus,
  registerJobLog,
  registerListJobs,
  registerCancelJob,
  registerRegisterEndpoint,
  registerRegisterModel,
  registerLocalComplete,
] as const;

export function registerTools(server: McpServer, app: App, caller: CallerPlace = {}): void {
  const counting = countingCallerBytes(server, (id, entry) => app.logCallerCall(id, entry), caller);
  for (const register of TOOL_REGISTRARS) register(counting, app);
}
