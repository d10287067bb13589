/**
 * Redis replication is asynchronous: a resume acknowledged by a primary whose replica has not
 * received it yet is lost if that primary dies, and the session can then be resumed twice.
 * Reproduced deterministically (replica paused with SIGSTOP, primary SIGKILLed, replica
 * promoted), and shown closed by withReplicaAcks (REDIS_WAIT_REPLICAS=1): the unreplicated
 * resume answers "unknown" (503) instead of a 200 that could be lost.
 * (A replica link can drop in production without any pause: a network blip, a full output buffer.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, waitUntilConnected, type RedisConnection } from '../../../server/redis/create-redis-connection.js';
import { withReplicaAcks } from '../../../server/redis/replica-acks.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { StoreUnavailableError } from '../../../server/errors/store-errors.js';
import type { SessionStore } from '../../../server/sessions/session-store.js';
import { startRedisCluster, type ClusterNode, type RedisCluster } from '../../helpers/redis-cluster.js';
import { waitFor } from '../../helpers/wait-for.js';

const PREFIX = 'acks:';
let cluster: RedisCluster;
let client: RedisConnection;
/** A client whose commands may wait longer than the server's 1 s default (for the patient WAIT). */
let slowClient: RedisConnection;

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1, nodeTimeoutMs: 1000 });
  client = createRedisConnection({ clusterNodes: cluster.nodes });
  slowClient = createRedisConnection({ clusterNodes: cluster.nodes }, { commandTimeoutMs: 15_000 });
  await Promise.all([waitUntilConnected(client), waitUntilConnected(slowClient)]);
}, 60_000);

afterAll(async () => {
  client?.disconnect();
  slowClient?.disconnect();
  await cluster?.stop();
});

/** Ids (of those given) whose session hash lives on `node`, whatever the key layout. */
async function idsOn(node: ClusterNode, ids: string[]): Promise<string[]> {
  const direct = createRedisConnection({ url: `redis://${node.address}` });
  try {
    await waitUntilConnected(direct);
    const keys = (await direct.keys(`${PREFIX}session:*`)).join('\n');
    return ids.filter((id) => keys.includes(id));
  } finally {
    direct.disconnect();
  }
}

async function cutReplicaLinks(primary: ClusterNode): Promise<void> {
  const direct = createRedisConnection({ url: `redis://${primary.address}` });
  try {
    await waitUntilConnected(direct);
    await direct.call('CLIENT', 'KILL', 'TYPE', 'replica');
  } finally {
    direct.disconnect();
  }
}

async function linkUp(replica: ClusterNode): Promise<boolean> {
  const direct = createRedisConnection({ url: `redis://${replica.address}` });
  try {
    await waitUntilConnected(direct);
    return /master_link_status:up/.test(String(await direct.info('replication')));
  } finally {
    direct.disconnect();
  }
}

/** Resumes once the slot is served again (reads first, so no resume is ever sent twice). */
async function resumeAfterFailover(store: SessionStore, id: string) {
  await waitFor(async () => (await store.get(id)) !== undefined, { timeoutMs: 30_000, intervalMs: 200, what: `${id} readable` });
  return store.resume(id);
}

describe('an acknowledged resume and a failover before replication', () => {
  it('without replica acks the session is resumed twice; with them the unreplicated resume is 503, then one 200', async () => {
    const raw = createRedisSessionStore({ client, keyPrefix: PREFIX });
    const acked = createRedisSessionStore({ client: withReplicaAcks(client, { replicas: 1, timeoutMs: 800 }), keyPrefix: PREFIX });
    // Seeding and the last resume are not what is tested: they may wait for the replica as long
    // as a loaded box needs (a replica that has just synced can take longer than 800 ms).
    const patient = createRedisSessionStore({ client: withReplicaAcks(slowClient, { replicas: 1, timeoutMs: 10_000 }), keyPrefix: PREFIX });
    const ids = Array.from({ length: 60 }, (_, i) => `s${i}-x`);
    await patient.seed(ids.map((id) => ({ id, status: 'paused' })));
    const primary = (await cluster.primaries())[0]!;
    const [rawId, ackedId] = await idsOn(primary, ids);
    expect(rawId && ackedId).toBeTruthy();
    const [replica] = await cluster.replicasOf(primary);
    expect(replica).toBeDefined();

    // The replica stops reading, and its link is cut from the primary's side: what the primary
    // writes now stays in its own backlog (a paused replica would still get it in its socket buffer).
    cluster.pauseNode(replica!);
    await cutReplicaLinks(primary);
    expect((await raw.resume(rawId!)).kind).toBe('resumed'); // a 200 held by the primary alone
    const unknown = await acked.resume(ackedId!).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(StoreUnavailableError); // 503: applied on the primary, not replicated
    expect(String((unknown as Error).message)).toMatch(/0 of 1 Redis replicas acknowledged/);

    await cluster.killPrimary(primary);
    cluster.continueNode(replica!);
    await cluster.waitUntilOk(60_000);
    expect((await cluster.primaries()).map((n) => n.port)).toContain(replica!.port);

    // The replica never got either write: the raw 200 is lost, so the session is resumed again.
    expect((await resumeAfterFailover(raw, rawId!)).kind).toBe('resumed');
    // With acks, a shard needs a live replica to take writes: the old primary comes back as one.
    await cluster.restartNode(primary);
    await waitFor(async () => (await cluster.replicasOf(replica!)).some((n) => n.port === primary.port), {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'old primary attached as a replica',
    });
    await waitFor(() => linkUp(primary), { timeoutMs: 30_000, intervalMs: 200, what: 'replica in sync' });
    // Nobody was told 200 for this session: this is its first and only 200.
    expect((await resumeAfterFailover(patient, ackedId!)).kind).toBe('resumed');
    expect((await patient.resume(ackedId!)).kind).toBe('not_paused');
  }, 120_000);
});
