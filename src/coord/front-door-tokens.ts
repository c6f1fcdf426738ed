/**
 * Where an MCP-over-HTTP server leaves its generated token: one owner-only
 * file per port in the state directory. The files double as the list of
 * localagents HTTP front doors this user runs, which every delegated session
 * is told never to connect to (nested delegation).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { privateDir, writePrivateFile } from './private-files.js';

const TOKEN_FILE = /^mcp-http-(\d{1,5})\.token$/;

export function tokenFilePath(stateDir: string, port: number): string {
  return join(stateDir, `mcp-http-${port}.token`);
}

/** A secret for the owner only: the state directory is 0700, the file 0600, whatever was there. Returns its path. */
export async function writeOwnerSecret(stateDir: string, name: string, text: string): Promise<string> {
  await privateDir(stateDir);
  const path = join(stateDir, name);
  await writePrivateFile(path, `${text}\n`);
  return path;
}

/** Written before the token is printed: whoever reads the line can find the file at once. */
export function writeTokenFile(stateDir: string, port: number, token: string): Promise<string> {
  return writeOwnerSecret(stateDir, `mcp-http-${port}.token`, token);
}

/** A dead server's token opens nothing; its file would only keep its port on the sessions' deny list. */
export async function removeTokenFile(stateDir: string, port: number): Promise<void> {
  await rm(tokenFilePath(stateDir, port), { force: true });
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
