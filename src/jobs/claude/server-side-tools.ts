/**
 * Claude Code tools that run on Anthropic's servers rather than in the session:
 * a delegated session's requests go to a local model server, which has none of
 * them, so the session is never offered one, and is told so in words.
 *
 * WebSearch is a server tool (`web_search_20250305`: Anthropic runs the search
 * and answers with `server_tool_use` / `web_search_tool_result` blocks); sent to
 * llama-server it becomes an ordinary function the model may call and no one
 * answers, vLLM rejects the request (a tool without `input_schema`), see
 * docs/content-blocks.md. WebFetch stays: Claude Code fetches the page itself.
 */

export const SERVER_SIDE_TOOLS: readonly string[] = ['WebSearch'];

/** The sentence appended to the delegated session's system prompt. */
export const SERVER_SIDE_TOOLS_NOTE =
  'WebSearch is not available in this session: it runs on Anthropic\'s servers, and your model runs on a local server. ' +
  'To read a page whose URL you know, use WebFetch; otherwise work from the repository.';

/** The tools to refuse: the user's list and the server-side tools, each once. */
export function withServerSideTools(disallowed: readonly string[]): string[] {
  return [...disallowed, ...SERVER_SIDE_TOOLS.filter((t) => !disallowed.includes(t))];
}
