/** Starts `server` on 127.0.0.1; a port already taken is the caller's to change, said as such. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadArgumentError } from '../errors.js';

/** `port` 0 or absent: any free port. */
export async function listenOnLoopback(server: Server, port: number | undefined): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException): void => {
      reject(
        err.code === 'EADDRINUSE'
          ? new BadArgumentError('port', `port ${port} on 127.0.0.1 is already in use`, { hint: 'Pick another --port, or leave it out for any free port.', cause: err })
          : err,
      );
    };
    server.once('error', fail);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      resolve();
    });
  });
  // listen(…, '127.0.0.1') always yields an AddressInfo, never a pipe name.
  return server.address() as AddressInfo;
}
