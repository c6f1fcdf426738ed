/**
 * Task ids that need no table: `<job id>.<nonce>.<mac>`, the mac an HMAC over the channel (stdio or http),
 * the job id and the nonce, under the state directory's task key (coord/task-key.ts). A task therefore maps
 * to its job across restarts, cannot be guessed or forged from a job id another client saw (list_jobs), and
 * an id handed out on one channel is nothing on the other.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Channel = 'stdio' | 'http';

export interface TaskIds {
  mint(jobId: string, channel: Channel): Promise<string>;
  /** The job a genuine id of this channel stands for; undefined for anything else. */
  jobOf(taskId: unknown, channel: Channel): Promise<string | undefined>;
}

const SHAPE = /^(\d{8}-\d{6}-[0-9a-z]{12})\.([0-9a-f]{32})\.([0-9a-f]{64})$/;

/**
 * `loadKey` runs on the first task, not when the server starts: a server whose state directory cannot hold the
 * key still starts and answers every other call (with words about the directory).
 */
export function taskIds(loadKey: () => Promise<Buffer>): TaskIds {
  let key: Promise<Buffer> | undefined;
  const keyOnce = (): Promise<Buffer> => {
    if (key === undefined) {
      key = loadKey();
      key.catch(() => (key = undefined)); // a key that could not be made is tried again on the next task
    }
    return key;
  };
  const mac = async (channel: Channel, jobId: string, nonce: string): Promise<Buffer> =>
    createHmac('sha256', await keyOnce()).update(`${channel}\n${jobId}\n${nonce}`).digest();
  return {
    async mint(jobId, channel) {
      const nonce = randomBytes(16).toString('hex');
      return `${jobId}.${nonce}.${(await mac(channel, jobId, nonce)).toString('hex')}`;
    },
    async jobOf(taskId, channel) {
      if (typeof taskId !== 'string' || taskId.length > 200) return undefined;
      const parts = SHAPE.exec(taskId);
      if (parts === null) return undefined;
      const [, jobId, nonce, given] = parts as unknown as [string, string, string, string];
      return timingSafeEqual(Buffer.from(given, 'hex'), await mac(channel, jobId, nonce)) ? jobId : undefined;
    },
  };
}
