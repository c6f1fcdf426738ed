/**
 * Every listener localagents opens (the shim, the dashboard, the MCP HTTP
 * transport) is bound to 127.0.0.1: it answers there, and a connection to the
 * same port through any other address of this machine is refused.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/server.js';
import { silentLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { serveHttp } from '../../src/mcp/transports.js';
import { nullRequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer } from '../../src/shim/server.js';
import { createApp, type App } from '../../src/app.js';
import { baseEnv, makeDirs } from '../reliability/in-process.js';

/** Every non-loopback address of this machine, plus IPv6 loopback (dialling 0.0.0.0 means 127.0.0.1 on Linux). */
function otherAddresses(): string[] {
  const out = ['::1'];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal || a.address.startsWith('fe80:')) continue; // link-local needs a scope id to dial
      out.push(a.address);
    }
  }
  return out;
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('listeners are loopback-only', () => {
  let app: App;
  const ports: Record<string, number> = {};
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    const dirs = makeDirs();
    app = createApp({ cwd: dirs.repo, env: baseEnv(dirs), log: silentLogger, stateDir: dirs.state, configPath: dirs.config });
    const shim = createShimServer(silentLogger);
    const route = await shim.open({ jobId: 'j', endpoint: { name: 'e', base_url: 'http://127.0.0.1:9', backend: 'llama.cpp' }, servedModel: 'm', context: undefined, log: nullRequestLog });
    expect(new URL(route.baseUrl).hostname).toBe('127.0.0.1');
    ports.shim = shim.port()!;
    closers.push(() => shim.close());
    const dashboard = await startDashboard(app, { log: silentLogger });
    expect(dashboard.address.address).toBe('127.0.0.1');
    ports.dashboard = dashboard.address.port;
    closers.push(() => dashboard.close());
    const http = await serveHttp(() => createMcpServer(app, '0.0.0-test'), { port: 0, host: '127.0.0.1', token: 'loopback-test-token-0123456789abcdef', tokenHint: () => '' });
    expect(new URL(http.url).hostname).toBe('127.0.0.1');
    ports['MCP HTTP transport'] = Number(new URL(http.url).port);
    closers.push(() => http.close());
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await app?.close();
  });


  for (const service of ['shim', 'dashboard', 'MCP HTTP transport']) {
    it(`${service}: answers on 127.0.0.1, refuses every other local address`, async () => {
      const port = ports[service]!;
      expect(await tryConnect('127.0.0.1', port)).toBe('connected');
      for (const address of otherAddresses()) {
        // ECONNREFUSED on this machine's eth0; without IPv6, ::1 fails to route instead. Never a connection.
        expect([address, await tryConnect(address, port)]).not.toEqual([address, 'connected']);
      }
    });
  }
});
