/**
 * The endpoint's health on Redis, shared by every instance: one key holding the state as JSON
 * (about 200 B), changed by compare-and-set (a script that writes only if the key still holds
 * what was read), so the rules stay in one place (server/webhooks/endpoint-circuit-rules.ts) and
 * a late write of an instance that read an older state changes nothing.
 */
import type { Cluster, Redis } from 'ioredis';
import { CLOSED_CIRCUIT, type EndpointHealth } from './endpoint-circuit-rules.js';
import type { EndpointHealthStore } from './endpoint-circuit.js';

const COMPARE_AND_SET = `if (redis.call('GET', KEYS[1]) or '') == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`;

/** Attempts of one change against concurrent ones before it fails. */
const MAX_TRIES = 20;

/**
 * The store under `key` (server/redis/redis-keys.ts `endpointHealth`).
 * @example const store = createRedisHealthStore(client, redisKeys(prefix).endpointHealth);
 */
export function createRedisHealthStore(client: Redis | Cluster, key: string): EndpointHealthStore {
  const parse = (text: string | null): EndpointHealth => (text ? (JSON.parse(text) as EndpointHealth) : CLOSED_CIRCUIT);
  return {
    read: async () => parse(await client.get(key)),
    async update(change) {
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        const text = await client.get(key);
        const before = parse(text);
        const after = change(before);
        if (after === before) return { before, after };
        if ((await client.eval(COMPARE_AND_SET, 1, key, text ?? '', JSON.stringify(after))) === 1) return { before, after };
      }
      throw new Error(`the endpoint health at ${key} changed under ${MAX_TRIES} updates in a row`);
    },
  };
}
