/** Enqueueing for the delivery group (bench/delivery-cases.ts, bench/delivery-worker.ts). */
import { randomUUID } from 'node:crypto';
import type { RedisDelivery } from '../server/webhooks/redis-delivery.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Enqueues `count` session events named `prefix_i` through `delivery.enqueue` (what a resume
 * does, fire and forget), with a round trip to Redis after every 200 so the adds in flight stay few.
 */
export async function enqueueEvents(delivery: RedisDelivery, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    delivery.enqueue({
      id: `msg_${randomUUID()}`,
      payload: { event: 'session.resumed', session: { id: `${prefix}_${i}` }, timestamp: new Date().toISOString() },
    });
    if (i % 200 === 199) {
      await delivery.stats();
      await sleep(0);
    }
  }
}
