/**
 * What each request leaves behind (docs/bounds.md): `node --expose-gc --import tsx bench/footprint.ts`.
 * Redis: a private redis-server, N requests of each kind through the Redis session store,
 * the growth of INFO memory `used_memory` per request (less the session hash's own change,
 * measured with unkeyed resumes), and MEMORY USAGE of the keys one request wrote. Memory:
 * the growth of the process (heap and RSS, after a full GC) over M keyed requests through the
 * memory store. FOOTPRINT_N (default 10 000) and FOOTPRINT_MEMORY_N (default 100 000).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { errorBody } from '../server/errors/error-answer.js';
import { createMemorySessionStore } from '../server/sessions/memory-session-store.js';
import { createRedisSessionStore } from '../server/sessions/redis-session-store.js';
import type { IdempotentAnswers, StoreResumeOptions, SessionStore } from '../server/sessions/session-store.js';

const N = Number(process.env.FOOTPRINT_N ?? 10_000);
const MEMORY_N = Number(process.env.FOOTPRINT_MEMORY_N ?? 100_000);
const PREFIX = 'session-resume:';
/** The answers the resume handler records (server/http/resume-handler.ts). */
const ANSWERS: IdempotentAnswers = {
  resumed: { status: 200, body: { success: true, message: 'Session resumed.' } },
  not_found: { status: 404, body: errorBody('not_found', 'Session not found.') },
  not_paused: { status: 409, body: errorBody('not_paused', 'Session is not paused (not_paused).') },
};
// A key as the client sends it (crypto.randomUUID), scoped like the server's API key id.
const keyed = (): StoreResumeOptions => ({ idempotency: { scope: 'k_3b1f0c2d9e8a7b6c', key: randomUUID(), answers: ANSWERS } });

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Bytes per request of `run` over ids `tag_0 … tag_{N-1}` (sessions seeded as `status` first). */
async function perRequest(redis: Redis, store: SessionStore, tag: string, status: string | undefined, options: () => StoreResumeOptions | undefined) {
  const ids = Array.from({ length: N }, (_, i) => `sess_${tag}_${i}`);
  if (status) await store.seed(ids.map((id) => ({ id, status })));
  const before = await usedMemory(redis);
  const keysBefore = await redis.dbsize();
  for (let i = 0; i < ids.length; i += 200) await Promise.all(ids.slice(i, i + 200).map((id) => store.resume(id, options())));
  // Intents are removed after the answer, without waiting.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { bytes: ((await usedMemory(redis)) - before) / N, keys: ((await redis.dbsize()) - keysBefore) / N };
}

/** MEMORY USAGE of every key matching `pattern` (SAMPLES 0: exact), over their number. */
async function keySize(redis: Redis, pattern: string): Promise<number | undefined> {
  const [, keys] = await redis.scan('0', 'MATCH', pattern, 'COUNT', 1000);
  if (keys.length === 0) return undefined;
  const sizes = await Promise.all(keys.map((key) => redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number>));
  return sizes.reduce((a, b) => a + b, 0) / keys.length;
}

async function redisFootprint(): Promise<void> {
  const server = await startRedisServer();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  try {
    const store = createRedisSessionStore({ client: redis, keyPrefix: PREFIX, events: false });
    const withEvents = createRedisSessionStore({ client: redis, keyPrefix: PREFIX, events: true });
    const unkeyed = await perRequest(redis, store, 'u', 'paused', () => undefined);
    const rows = {
      'keyed resume (200)': await perRequest(redis, store, 'k', 'paused', keyed),
      'keyed 409': await perRequest(redis, store, 'r', 'running', keyed),
      'keyed 404': await perRequest(redis, store, 'm', undefined, keyed),
      'unkeyed 404 (webhook on)': await perRequest(redis, withEvents, 'n', undefined, () => undefined),
    };
    const claim = await keySize(redis, `${PREFIX}idem-claim:*`);
    const record = await keySize(redis, `${PREFIX}idem:*`);
    console.log(`Redis ${N} requests each; session hash change of a resume: ${unkeyed.bytes.toFixed(0)} B (subtracted from resumes)`);
    for (const [kind, { bytes, keys }] of Object.entries(rows)) {
      const own = kind.startsWith('keyed resume') ? bytes - unkeyed.bytes : bytes;
      console.log(`  ${kind.padEnd(26)} ${own.toFixed(0).padStart(5)} B/request (used_memory), ${keys.toFixed(2)} keys/request`);
    }
    console.log(`  MEMORY USAGE: claim key ${claim?.toFixed(0)} B, recorded answer ${record?.toFixed(0)} B`);
  } finally {
    await redis.quit();
    await server.stop();
  }
}

function processMemory() {
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

async function memoryFootprint(): Promise<void> {
  if (!globalThis.gc) console.log('(run with node --expose-gc for exact figures)');
  const store = createMemorySessionStore();
  const ids = Array.from({ length: MEMORY_N }, (_, i) => `sess_m_${i}`);
  await store.seed(ids.map((id) => ({ id, status: 'paused' })));
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const signed = (bytes: number) => `${bytes < 0 ? '−' : '+'}${mb(Math.abs(bytes))}`;
  // Every figure is the growth since the sessions were seeded, so the last one shows the cap holding.
  const base = processMemory();
  const report = (label: string) => {
    const now = processMemory();
    console.log(`  after ${label.padEnd(40)} heap ${signed(now.heapUsed - base.heapUsed)} MB, RSS ${signed(now.rss - base.rss)} MB`);
  };
  console.log(`Memory store, growth of the process since seeding ${MEMORY_N} sessions (IDEMPOTENCY_MAX_KEYS 100 000):`);
  for (const id of ids) await store.resume(id, keyed());
  report(`${MEMORY_N} keyed resumes (200)`);
  for (const id of ids) await store.resume(`missing_${id}`, keyed());
  report(`${MEMORY_N} keyed 404s more`);
  for (const id of ids) await store.resume(id, keyed());
  report(`${MEMORY_N} keyed 409s more (LRU drops the oldest)`);
}

await redisFootprint();
await memoryFootprint();
