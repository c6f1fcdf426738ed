/**
 * Task ids that need no table: `<job id>.<nonce>.<mac>`, the mac an HMAC over the channel (stdio or http),
 * the job id and the nonce, under the state directory's task key (coord/task-key.ts). A task therefore maps
 * to its job across restarts, cannot be guessed or forged from a job id another client saw (list_jobs), and
 * an id handed out on one channel is nothing on the other.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Channel = 'stdio' | 'http';

export interface TaskIds {
  mint(jobId: string, channel: Channel): string;
  /** The job a genuine id of this channel stands for; undefined for anything else. */
  jobOf(taskId: unknown, channel: Channel): string | undefined;
}

const SHAPE = /^(\d{8}-\d{6}-[0-9a-z]{12})\.([0-9a-f]{32})\.([0-9a-f]{64})$/;

export function taskIds(key: Buffer): TaskIds {
  const mac = (channel: Channel, jobId: string, nonce: string): Buffer => createHmac('sha256', key).update(`${channel}\n${jobId}\n${nonce}`).digest();
  return {
    mint(jobId, channel) {
      const nonce = randomBytes(16).toString('hex');
      return `${jobId}.${nonce}.${mac(channel, jobId, nonce).toString('hex')}`;
    },
    jobOf(taskId, channel) {
      if (typeof taskId !== 'string' || taskId.length > 200) return undefined;
      const parts = SHAPE.exec(taskId);
      if (parts === null) return undefined;
      const [, jobId, nonce, given] = parts as unknown as [string, string, string, string];
      return timingSafeEqual(Buffer.from(given, 'hex'), mac(channel, jobId, nonce)) ? jobId : undefined;
    },
  };
}
