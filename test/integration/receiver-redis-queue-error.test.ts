/**
 * The Redis store's queue connection reports its errors through the receiver's logger, as its
 * other connections do: a Redis that is not there is never met in silence.
 */
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { getFreePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';

describe('Redis store: queue connection errors', () => {
  it('reach the receiver logger once a receiver started the store', async () => {
    const port = await getFreePort(); // nothing listens there
    const reports: string[] = [];
    const store = createRedisEventStore({ url: `redis://127.0.0.1:${port}`, process: false, prefix: `queue-error-${port}` });
    const receiver = createWebhookReceiver({ store, onEvent: () => {}, logger: { warn: (_obj, msg) => reports.push(msg ?? '') } });
    try {
      await waitFor(() => reports.includes('receiver queue: Redis connection error'));
    } finally {
      await Promise.race([receiver.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
    expect(reports).toContain('receiver queue: Redis connection error');
  });
});
