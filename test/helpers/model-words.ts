/**
 * Words written for the calling model, never for a person: the MCP tool names
 * (src/mcp/tools) and the instructions to pass something on. CLI and dashboard
 * text must contain none of them.
 */
export const MODEL_WORDS =
  /\b(run_agent|wait_job|list_models|request_model|job_status|job_log|list_jobs|cancel_job|register_endpoint|register_model|local_complete)\b|relay|ask the user/i;
