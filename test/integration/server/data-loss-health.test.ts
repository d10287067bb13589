/**
 * Data loss is visible: when Redis has lost the seeded sessions (the seed marker is gone),
 * /healthz answers 503 with the reason and the loss is logged, until the sessions are
 * reseeded; a keyed 404 seen meanwhile is not replayed after the reseed (404s are not
 * recorded: x-decisions idempotency-key). Own key prefix on the shared Redis.
 */
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../../server/app.js';
import { createRedisSeedMarker, watchSeededSessions } from '../../../server/sessions/session-seed-admin.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { seedStore } from '../../../server/sessions/seed-on-start.js';
import type { SeedSource } from '../../../server/sessions/session-seeds.js';
import { listen, type Listening } from '../../helpers/listen.js';
import { deletePrefix, uniquePrefix } from '../../helpers/redis-keys.js';

const prefix = `${uniquePrefix('data-loss')}:`;
let client: Redis;
let server: Listening | undefined;
afterAll(async () => {
  await server?.close();
  await deletePrefix(inject('redisUrl'), prefix);
  await client?.quit();
});

const source: SeedSource = { label: 'test', version: 'v1', load: async () => [{ id: 'sess_kept', status: 'paused' }] };

describe('data loss on Redis', () => {
  it('/healthz is 503 with the reason while the seeded sessions are gone, logged once, 200 again after a reseed', async () => {
    client = createRedisClient(inject('redisUrl'));
    await waitUntilConnected(client);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const marker = createRedisSeedMarker(client, prefix);
    const store = watchSeededSessions(createRedisSessionStore({ client, keyPrefix: prefix, events: false }), { marker, logger });
    await seedStore({ store, source, marker });
    server = await listen(await createApp({ store, apiKeys: ['k'], logger }));
    const health = () => fetch(`${server!.url}/healthz`);
    const resume = (key: string) =>
      fetch(`${server!.url}/v1/sessions/sess_kept/resume`, { method: 'POST', headers: { authorization: 'Bearer k', 'idempotency-key': key } });

    expect((await health()).status).toBe(200);
    // What a FLUSHALL or a restart without persistence does to this prefix.
    await deletePrefix(inject('redisUrl'), prefix);
    const lost = await health();
    expect(lost.status).toBe(503);
    expect(await lost.json()).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/lost the sessions.*Reseed/) });
    expect((await health()).status).toBe(503);
    expect(lines.filter((l) => l.includes('data loss'))).toHaveLength(1);
    expect((await resume('retry-1')).status).toBe(404);

    await seedStore({ store, source, marker });
    expect((await health()).status).toBe(200);
    expect(lines.some((l) => l.includes('sessions reseeded'))).toBe(true);
    // The keyed retry that got 404 during the loss now resumes the reseeded session.
    expect((await resume('retry-1')).status).toBe(200);
  });
});
