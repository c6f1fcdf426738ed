/**
 * Where an MCP-over-HTTP server leaves its generated token: one owner-only
 * file per port in the state directory. The files double as the list of
 * localagents HTTP front doors this user runs, which every delegated session
 * is told never to connect to (nested delegation).
 */
import { readdir } from 'node:fs/promises';

const TOKEN_FILE = /^mcp-http-(\d{1,5})\.token$/;

export function tokenFileName(port: number): string {
  return `mcp-http-${port}.token`;
}

/** Ports with a token file; an unreadable state directory has none. */
export async function httpFrontDoorPorts(stateDir: string): Promise<number[]> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const port = TOKEN_FILE.exec(name)?.[1];
    return port === undefined ? [] : [Number(port)];
  });
}

/** Claude Code `deniedMcpServers` entries for those front doors, under every name they answer to on loopback. */
export function deniedFrontDoors(ports: readonly number[]): Array<{ serverUrl: string }> {
  return ports.flatMap((port) => ['127.0.0.1', 'localhost', '[::1]'].map((host) => ({ serverUrl: `http://${host}:${port}/*` })));
}
