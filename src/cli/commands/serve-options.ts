/** The MCP server's option values, apart from serve.ts so the command line can list them without loading the server. */
export const TRANSPORTS = ['stdio', 'http', 'streamable-http', 'sse'] as const;

/** The user's own bearer token for --transport http; an environment variable because argv is readable by every local user. */
export const HTTP_TOKEN_ENV = 'LOCALAGENTS_HTTP_TOKEN';

export interface ServeOptions {
  readonly config?: string;
  readonly transport: string;
  readonly port: string;
  readonly host: string;
  readonly allowedHost?: string[];
  readonly dashboard?: boolean;
  readonly dashboardPort?: string;
}
