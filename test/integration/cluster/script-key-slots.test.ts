/**
 * Every command the server sends to Redis keeps its keys in one hash slot, so each runs on
 * Redis Cluster: the whole workload (HTTP resumes with Idempotency-Key, rate limit, store,
 * seeding and reset) runs against a private Redis under MONITOR, and every command with
 * several keys (EVAL/EVALSHA included, keys from COMMAND GETKEYS), and every command a
 * script runs inside, must stay in the slot of its first key. Ids come from fast-check,
 * braces and all: a `{` or `}` in an id must not move its hash tag.
 */
import { randomUUID } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../server/app.js';
import { createRedisRateLimitStore } from '../../../server/http/redis-rate-limit-store.js';
import { createRedisConnection, waitUntilConnected, type RedisConnection } from '../../../server/redis/create-redis-connection.js';
import { createRedisSeedMarker, resetRedisSessions } from '../../../server/sessions/session-seed-admin.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { seedStore } from '../../../server/sessions/seed-on-start.js';
import { openSeedSource } from '../../../server/sessions/session-seeds.js';
import { listen } from '../../helpers/listen.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

interface Seen {
  args: string[];
  source: string;
}

let redis: RedisServer;
let client: RedisConnection;
let monitor: Redis;
const seen: Seen[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  monitor = new Redis(redis.url);
  const feed = await monitor.monitor();
  feed.on('monitor', (_time: string, args: string[], source: string) => seen.push({ args, source }));
  client = createRedisConnection({ url: redis.url });
  await waitUntilConnected(client);
});

afterAll(async () => {
  monitor?.disconnect();
  client?.disconnect();
  await redis?.stop();
});

/** The keys of one command as Redis itself sees them (none for keyless commands). */
async function keysOf(asker: Redis, args: string[]): Promise<string[]> {
  try {
    return ((await asker.call('COMMAND', 'GETKEYS', ...args)) as string[]) ?? [];
  } catch {
    return []; // "The command has no key arguments" and the like
  }
}

async function runWorkload(ids: string[]): Promise<void> {
  const keyPrefix = `slots-${randomUUID()}:`;
  const store = createRedisSessionStore({ client, keyPrefix });
  await store.seed(ids.map((id) => ({ id, status: 'paused' })));
  const rateLimitStore = createRedisRateLimitStore(client, `${keyPrefix}rate:`);
  const app = await createApp({ store, apiKeys: ['k{1}', 'k2'], rateLimit: { limit: 1000, windowMs: 60_000, store: rateLimitStore } });
  const server = await listen(app);
  try {
    for (const [i, id] of ids.entries()) {
      const headers = { authorization: `Bearer ${i % 2 ? 'k{1}' : 'k2'}`, 'idempotency-key': `key-${i}-{${id}}` };
      const url = `${server.url}/v1/sessions/${encodeURIComponent(id)}/resume`;
      await fetch(url, { method: 'POST', headers });
      await fetch(url, { method: 'POST', headers }); // a replay (or a not_paused without idempotency)
      await fetch(url, { method: 'POST', headers: { authorization: headers.authorization } });
    }
  } finally {
    await server.close();
  }
  const source = await openSeedSource();
  const marker = createRedisSeedMarker(client, keyPrefix);
  await seedStore({ store, source, marker });
  await seedStore({ store, source, marker });
  await resetRedisSessions(client, keyPrefix);
}

describe('hash slots of every multi-key command and script', () => {
  it('the workload keeps each command, and the commands its scripts run, within one slot', async () => {
    const ids = fc.sample(fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom('a', 'b', '{', '}', ':', 'é', '/', ' ', '*') }), {
      numRuns: 40,
      seed: 16,
    });
    await runWorkload([...new Set(['{}', '{a}', 'a{b}c', '}{', ...ids])]);
    await new Promise((r) => setTimeout(r, 200)); // the last MONITOR lines
    monitor.disconnect(); // the checks below must not watch themselves
    const log = [...seen];
    const asker = new Redis(redis.url);
    const problems: string[] = [];
    let scripts = 0;
    let scriptSlot: number | undefined;
    try {
      const allKeys = await Promise.all(log.map(({ args }) => keysOf(asker, args)));
      for (const [i, { args, source }] of log.entries()) {
        const keys = allKeys[i]!;
        const slots = new Set(keys.map((k) => calculateSlot(k)));
        if (source === 'lua') {
          // A command inside a script: its keys must be in the slot of the script's keys.
          if (scriptSlot !== undefined && [...slots].some((s) => s !== scriptSlot)) problems.push(`inside a script: ${args.join(' ')}`);
          continue;
        }
        const command = args[0]!.toLowerCase();
        if (['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro'].includes(command)) {
          scripts++;
          scriptSlot = keys.length > 0 ? calculateSlot(keys[0]!) : undefined;
        } else {
          scriptSlot = undefined;
        }
        if (slots.size > 1) problems.push(`${slots.size} slots: ${args.slice(0, 3 + keys.length).join(' ')}`);
      }
    } finally {
      asker.disconnect();
    }
    expect(scripts).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  }, 90_000);

  it('the check itself catches keys in two slots', async () => {
    const asker = new Redis(redis.url);
    try {
      const keys = await keysOf(asker, ['EVAL', 'return 1', '2', 'session:{a}', 'idem:{b}']);
      expect(new Set(keys.map((k) => calculateSlot(k))).size).toBe(2);
    } finally {
      asker.disconnect();
    }
  });
});
