/**
 * One Redis connection factory (runtime/redis-connection.ts) for both packages: the server's
 * connections and the receiver store's carry the same options for the same role, and a
 * request-path command fails at once while Redis is unreachable instead of waiting.
 */
import { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { openRedisConnection, type RedisConnection } from '@session-resume-api/runtime/redis-connection';
import { createQueueConnection, createRedisConnection } from '../../server/redis/create-redis-connection.js';
import { createConnector } from '../../client/webhooks/redis/connection.js';
import { getFreePort } from '../helpers/free-port.js';

const KEYS = ['maxRetriesPerRequest', 'autoResendUnfulfilledCommands', 'enableOfflineQueue', 'commandTimeout', 'connectTimeout'] as const;
const optionsOf = (connection: RedisConnection) => Object.fromEntries(KEYS.map((key) => [key, (connection as Redis).options[key]]));
const opened: RedisConnection[] = [];
const keep = (connection: RedisConnection) => (opened.push(connection), connection);

afterEach(() => {
  for (const connection of opened.splice(0)) connection.disconnect();
});

describe('the one Redis connection factory', () => {
  it('gives the server and the receiver store the same options per role', async () => {
    const url = `redis://127.0.0.1:${await getFreePort()}`;
    const receiver = createConnector({ url }, { Redis, Cluster }, 'test');
    const serverRequest = optionsOf(keep(createRedisConnection({ url })));
    expect(serverRequest).toEqual({
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      enableOfflineQueue: false,
      commandTimeout: 1000,
      connectTimeout: 2000,
    });
    expect(optionsOf(keep(receiver({})))).toEqual(serverRequest);
    const serverBlocking = optionsOf(keep(createQueueConnection({ url })));
    expect(serverBlocking).toMatchObject({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    expect(optionsOf(keep(receiver({ role: 'blocking' })))).toEqual(serverBlocking);
  });

  it('fails a request-path command at once while nothing answers, and never queues it', async () => {
    const connection = keep(openRedisConnection({ Redis, Cluster }, { url: `redis://127.0.0.1:${await getFreePort()}` }));
    await expect(connection.ping()).rejects.toThrow();
  });

  it('refuses a seed node that is not host:port, naming clusterNodes', () => {
    expect(() => openRedisConnection({ Redis, Cluster }, { clusterNodes: ['10.0.0.5'] })).toThrow(
      expect.objectContaining({ name: 'OptionsError', option: 'clusterNodes' }),
    );
    expect(() => createConnector({ clusterNodes: ['10.0.0.5:99999'] }, { Redis, Cluster }, 'createRedisEventStore')).toThrow(
      /createRedisEventStore: seed node "10.0.0.5:99999" must be host:port/,
    );
  });
});

describe('a Redis host that does not exist', () => {
  it('is named with ENOTFOUND and the variable to fix, without waiting out the deadline', { timeout: 30_000 }, async () => {
    const { waitUntilConnected } = await import('../../server/redis/create-redis-connection.js');
    const connection = keep(createRedisConnection({ url: 'redis://localhots.invalid:6391' }));
    // A deadline far beyond the test's own: the rejection comes from the lookup, not the timer.
    await expect(waitUntilConnected(connection, 600_000)).rejects.toThrow(
      'Redis at localhots.invalid:6391: the host name localhots.invalid does not resolve (ENOTFOUND): fix the host in REDIS_URL.',
    );
  });
});
