/**
 * Bulk seeding on one Redis or a Cluster, one code path: keys grouped by hash slot (a script may
 * touch one slot only), a script per group that creates missing sessions, calls pipelined.
 */
import { createHash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import type { SessionSeed } from './session-store.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';

/** Options of `seedRedisSessions`. */
export interface SeedRedisSessionsOptions {
  /** One Redis or a Cluster. */
  client: RedisConnection;
  /** The sessions to create where missing (existing ones are never overwritten). */
  seeds: readonly SessionSeed[];
  /** The Redis key of a session's hash (the store's own key function). */
  key: (id: string) => string;
  /**
   * `updatedAt` of every created session.
   * @defaultValue now
   */
  updatedAt?: string;
  /**
   * Most sessions per script call.
   * @defaultValue 1000
   */
  batchSize?: number;
  /**
   * Script calls in flight at once.
   * @defaultValue 64
   */
  inFlight?: number;
}

// ARGV: one status per key, then updatedAt. Created whole or not at all, never overwritten, so
// instances started with the same file share one state.
const SEED_BATCH_SCRIPT = `
local at = ARGV[#ARGV]
local created = 0
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    redis.call('HSET', KEYS[i], 'status', ARGV[i], 'updatedAt', at)
    created = created + 1
  end
end
return created
`;
const SEED_BATCH_SHA = createHash('sha1').update(SEED_BATCH_SCRIPT).digest('hex');

/**
 * Creates the missing sessions; resolves with how many. Redis errors reject; a partly applied seed
 * is safe to run again.
 * @example const { created } = await seedRedisSessions({ client, seeds, key: (id) => `app:session:{${id}}` });
 */
export async function seedRedisSessions(options: SeedRedisSessionsOptions): Promise<{ created: number }> {
  const { client, key } = options;
  const batchSize = options.batchSize ?? 1000;
  const updatedAt = options.updatedAt ?? new Date().toISOString();
  // Grouped by slot on one node too, so one code path holds on either.
  const batches = slotBatches(options.seeds, key, batchSize);
  const run = async ({ keys, statuses }: Batch): Promise<number> => {
    try {
      return Number(await client.evalsha(SEED_BATCH_SHA, keys.length, ...keys, ...statuses, updatedAt));
    } catch (err) {
      // Each node loads the script on first use (and again after a restart or failover).
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return Number(await client.eval(SEED_BATCH_SCRIPT, keys.length, ...keys, ...statuses, updatedAt));
    }
  };
  let created = 0;
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const done = await run(batches[next++]!);
      created += done;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.inFlight ?? 64, batches.length) }, worker));
  return { created };
}

interface Batch {
  keys: string[];
  statuses: string[];
}

function slotBatches(seeds: readonly SessionSeed[], key: (id: string) => string, size: number): Batch[] {
  const bySlot = new Map<number, Batch>();
  const batches: Batch[] = [];
  for (const seed of seeds) {
    const k = key(seed.id);
    const slot = calculateSlot(k);
    let batch = bySlot.get(slot);
    if (!batch || batch.keys.length >= size) {
      batch = { keys: [], statuses: [] };
      bySlot.set(slot, batch);
      batches.push(batch);
    }
    batch.keys.push(k);
    batch.statuses.push(seed.status);
  }
  return batches;
}
