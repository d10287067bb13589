/**
 * Redis Cluster runs a script only when all of its keys hash to one slot. Every key the
 * receiver's Redis store and its BullMQ queue touch carries the hash tag `{prefix}`: this test
 * computes the slots (cluster-key-slot, the function ioredis routes with) of every key a
 * script is given, and fails if two differ; a script builds no key name itself.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createRecordCall } from '../../client/webhooks/redis/record-call.js';
import { SCRIPTS, storeKeys } from '../../client/webhooks/redis/store-scripts.js';

// ioredis' own dependency, the slot function it routes commands with (it ships no types).
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;
const slotsOf = (keys: string[]) => new Set(keys.map((k) => calculateSlot(k)));

/** Every key of one store: the scripts' KEYS, the keys they build, and BullMQ's queue keys. */
function allKeys(prefix: string, queueName: string): string[] {
  const keys = storeKeys(prefix, queueName);
  const bull = [
    'wait',
    'active',
    'delayed',
    'completed',
    'failed',
    'paused',
    'meta',
    'id',
    'events',
    'stalled',
    'stalled-check',
    'prioritized',
    'marker',
    'pc',
    'limiter',
  ].map((name) => `${keys.bullPrefix}:${queueName}:${name}`);
  return [
    keys.dedupe,
    `${keys.dedupe}:${Math.floor(Date.now() / 300_000)}`,
    `${keys.dedupe}:0`,
    keys.inbox,
    keys.inboxAt,
    keys.dead,
    keys.deadEvents,
    keys.deadWhy,
    `${keys.bullPrefix}:${queueName}:eAbCdEfGhIjKlMnOp`,
    `${keys.bullPrefix}:${queueName}:eAbCdEfGhIjKlMnOp:lock`,
    ...bull,
  ];
}

describe('receiver Redis keys and Cluster slots', () => {
  it.each([
    ['session-resume-api', 'webhook-events'],
    ['acme', 'hooks'],
    ['a.b-c_d e', 'x'],
  ])('every key of prefix %s and queue %s lands in one slot', (prefix, queue) => {
    expect(slotsOf(allKeys(prefix, queue)).size).toBe(1);
  });

  it('each script declares the keys it is given in that one slot, and builds no key name itself', () => {
    const keys = storeKeys('session-resume-api', 'webhook-events');
    const now = Date.now();
    const call = createRecordCall(keys)({ fromMs: now, deadlineMs: now + 2000, windowMs: 3_600_000, bucketMs: 300_000, batchId: 'b', events: [] });
    const buckets = { keys: call.slice(4, Number(call[0]) + 1) as string[] };
    expect(buckets.keys.length).toBeGreaterThanOrEqual(13);
    const given: Record<string, string[]> = {
      sraRecord: [keys.inbox, keys.inboxAt, keys.dead, ...buckets.keys],
      sraHandedOver: [keys.inbox, keys.inboxAt],
      sraClaimStale: [keys.inbox, keys.inboxAt],
      sraPending: [buckets.keys[0]!, keys.dead],
      sraProcessed: [keys.inbox, keys.inboxAt, keys.dead, keys.deadEvents, keys.deadWhy, buckets.keys[0]!, buckets.keys.at(-1)!],
      sraDead: [keys.dead, keys.deadEvents, keys.deadWhy, keys.inbox, keys.inboxAt],
      sraRetryDead: [keys.dead, keys.deadEvents, keys.deadWhy, keys.inbox, keys.inboxAt],
      sraTime: [keys.inbox],
    };
    for (const script of SCRIPTS) {
      if (script.numberOfKeys !== undefined) expect(given[script.name], script.name).toHaveLength(script.numberOfKeys);
      expect(slotsOf(given[script.name]!).size, script.name).toBe(1);
      // Every key a script touches comes from KEYS: no concatenation builds one inside Lua.
      expect(script.lua, script.name).not.toMatch(/KEYS\[[^\]]+\]\s*\.\.|ARGV\[[^\]]+\]\s*\.\.\s*ARGV/);
    }
  });

  it('the check can fail: the same names without the hash tag spread over slots', () => {
    const untagged = allKeys('session-resume-api', 'webhook-events').map((k) => k.replace('{session-resume-api}', 'session-resume-api'));
    expect(slotsOf(untagged).size).toBeGreaterThan(1);
  });
});
