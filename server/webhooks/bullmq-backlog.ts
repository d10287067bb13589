/**
 * The endpoint's held backlog on Redis, in BullMQ's own delayed set (x-decisions:
 * endpoint-health): a held job is moved to the delayed set (`job.moveToDelayed`, BullMQ's
 * documented way for a processor to put its job back) at its due time plus `PARK_OFFSET_MS`, a
 * time no job reaches, so BullMQ never promotes it by itself, the set keeps the backlog in order
 * of due time for every instance, and BullMQ's own reads count it as pending. A release promotes
 * the earliest due (`job.promote()`: to the waiting list, which workers take oldest promoted
 * first). Nothing is written per successful attempt.
 */
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { HeldBacklog } from './delivery-queue.js';

/** How far past its due time a held job waits in the delayed set: 1000 years, never reached. */
export const PARK_OFFSET_MS = 1000 * 365.25 * 86_400_000;

/** BullMQ scores a delayed job by its time × 0x1000 (the low 12 bits order jobs of one ms). */
const SCORE_PER_MS = 0x1000;
const LOWEST_PARKED = String(PARK_OFFSET_MS * SCORE_PER_MS);

/** The time a held job due at `dueAt` is parked at in the delayed set. */
export function parkedAt(dueAt: number): number {
  return PARK_OFFSET_MS + Math.max(0, dueAt);
}

/**
 * The backlog over `queue`'s delayed set, read through `connection` (the queue's own client).
 * @example const backlog = createBullmqBacklog(queue, connection);
 */
export function createBullmqBacklog(queue: Queue, connection: Redis | Cluster): HeldBacklog {
  const delayed = queue.toKey('delayed');
  return {
    async count() {
      return connection.zcount(delayed, LOWEST_PARKED, '+inf');
    },
    async release(count) {
      if (count < 1) return 0;
      const ids = await connection.zrangebyscore(delayed, LOWEST_PARKED, '+inf', 'LIMIT', 0, count);
      // One at a time, in order: each promotion goes to the far end of the waiting list, so the
      // earliest due is taken first. A job another instance promoted first is skipped.
      for (const id of ids) {
        const job = await queue.getJob(id);
        await job?.promote().catch(() => undefined);
      }
      return ids.length;
    },
  };
}
