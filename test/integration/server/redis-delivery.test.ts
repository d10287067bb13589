/**
 * Redis delivery in-process against the shared Redis (random key prefix) and a real HTTPS
 * receiver: relay after a crash between the script and the enqueue, signatures, 410,
 * dead-letter list and replay (in-process and through the operator CLI).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import type { SessionStore } from '../../../server/sessions/session-store.js';
import { createRedisDelivery, type RedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { runServerCommand } from '../../helpers/server-process.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('redis-delivery-test-secret-0123456789').toString('base64')}`;
let client: Redis;
let connection: Redis;
let receiver: HttpsReceiver;
/** Status the receiver answers per session id (default 200). */
const answers = new Map<string, number>();
const prefixes: string[] = [];
const deliveries: RedisDelivery[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startHttpsReceiver((request, res) => {
    const id = (JSON.parse(request.body) as { session: { id: string } }).session.id;
    const status = answers.get(id) ?? 200;
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
});

afterAll(async () => {
  await Promise.all(deliveries.map((o) => o.close({ timeoutMs: 2000 })));
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await client.quit();
  await connection.quit();
  await receiver.close();
});

function setup(schedule = [0, 50, 50]): { store: SessionStore; delivery: RedisDelivery; keyPrefix: string } {
  const keyPrefix = `delivery-test:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const store = createRedisSessionStore({ client, keyPrefix });
  const delivery = createRedisDelivery({
    client,
    connection,
    keyPrefix,
    url: `${receiver.origin}/hook`,
    allowPrivate: true,
    ca: receiver.certificate.cert,
    secret: SECRET,
    schedule,
    relayIntervalMs: 100,
    relayMinAgeMs: 100,
    logger: pino({ enabled: false }),
  });
  deliveries.push(delivery);
  return { store, delivery, keyPrefix };
}

const requestsFor = (sessionId: string) => receiver.requests.filter((r) => r.body.includes(`"${sessionId}"`));

describe('Redis delivery, with the delivery relay', () => {
  it('the relay delivers an event whose process died between the resume script and the enqueue', async () => {
    const { store } = setup();
    const sessionId = `relay_${randomUUID()}`;
    await store.seed([{ id: sessionId, status: 'paused' }]);
    // The resume ran (script wrote the event and the intent) but nobody called enqueue.
    const transition = await store.resume(sessionId);
    expect(transition.kind).toBe('resumed');
    await waitFor(() => requestsFor(sessionId).length === 1, { what: 'the relayed delivery' });
    const [request] = requestsFor(sessionId);
    expect(request!.headers['webhook-id']).toBe(transition.kind === 'resumed' ? transition.event.id : '');
    expect(new Webhook(SECRET).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({
      event: 'session.resumed',
      session: { id: sessionId },
    });
  });

  it('a resume script run twice (ioredis re-sending it after a reconnect) still delivers its event once', async () => {
    const { keyPrefix } = setup();
    // Every EVAL runs twice and the caller sees the second reply, as when the first reply is lost.
    const twice = new Proxy(client, {
      get(target, property) {
        if (property === 'eval') {
          return async (...args: Parameters<Redis['eval']>) => {
            await target.eval(...args);
            return target.eval(...args);
          };
        }
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const store = createRedisSessionStore({ client: twice, keyPrefix });
    const sessionId = `twice_${randomUUID()}`;
    await store.seed([{ id: sessionId, status: 'paused' }]);
    // The second run finds the event the first wrote: the caller is told resumed (that flip is its own).
    expect((await store.resume(sessionId)).kind).toBe('resumed');
    await waitFor(() => requestsFor(sessionId).length === 1, { what: 'the relayed delivery' });
    await new Promise((r) => setTimeout(r, 500));
    expect(requestsFor(sessionId)).toHaveLength(1);
  });

  it('enqueue and relay of the same event deliver it once (jobId = webhook-id)', async () => {
    const { store, delivery } = setup();
    const sessionId = `once_${randomUUID()}`;
    await store.seed([{ id: sessionId, status: 'paused' }]);
    const transition = await store.resume(sessionId);
    if (transition.kind !== 'resumed') throw new Error('not resumed');
    delivery.enqueue(transition.event);
    delivery.enqueue(transition.event);
    await delivery.relayOnce();
    await waitFor(() => requestsFor(sessionId).length >= 1, { what: 'the delivery' });
    await delivery.relayOnce();
    await new Promise((r) => setTimeout(r, 500));
    expect(requestsFor(sessionId)).toHaveLength(1);
  });

  it('a schedule that runs out puts the event in the dead-letter list; a replay delivers it with the same webhook-id', async () => {
    const { store, delivery } = setup([0, 50, 50]);
    const sessionId = `dead_${randomUUID()}`;
    answers.set(sessionId, 503);
    await store.seed([{ id: sessionId, status: 'paused' }]);
    const transition = await store.resume(sessionId);
    if (transition.kind !== 'resumed') throw new Error('not resumed');
    delivery.enqueue(transition.event);
    await waitFor(async () => (await delivery.listDead()).some((d) => d.id === transition.event.id), { what: 'the dead letter' });
    expect(requestsFor(sessionId)).toHaveLength(3);
    const [dead] = (await delivery.listDead()).filter((d) => d.id === transition.event.id);
    expect(dead).toMatchObject({ payload: transition.event.payload, attempts: 3 });
    answers.set(sessionId, 200);
    expect(await delivery.replay(transition.event.id)).toBe(true);
    await waitFor(() => requestsFor(sessionId).length === 4, { what: 'the replayed delivery' });
    const ids = new Set(requestsFor(sessionId).map((r) => r.headers['webhook-id']));
    expect([...ids]).toEqual([transition.event.id]);
    expect((await delivery.listDead()).some((d) => d.id === transition.event.id)).toBe(false);
    expect(await delivery.replay('msg_unknown')).toBe(false);
  });

  it('410 Gone stops retrying at once: one attempt, then the dead-letter list', async () => {
    const { store, delivery } = setup([0, 50, 50, 50]);
    const sessionId = `gone_${randomUUID()}`;
    answers.set(sessionId, 410);
    await store.seed([{ id: sessionId, status: 'paused' }]);
    const transition = await store.resume(sessionId);
    if (transition.kind !== 'resumed') throw new Error('not resumed');
    delivery.enqueue(transition.event);
    await waitFor(async () => (await delivery.listDead()).some((d) => d.id === transition.event.id), { what: 'the dead letter' });
    expect(requestsFor(sessionId)).toHaveLength(1);
  });

  it('the operator CLI lists dead events and replays them all with the same webhook-id', async () => {
    const { store, delivery, keyPrefix } = setup([0]);
    const sessionId = `cli_${randomUUID()}`;
    answers.set(sessionId, 500);
    await store.seed([{ id: sessionId, status: 'paused' }]);
    const transition = await store.resume(sessionId);
    if (transition.kind !== 'resumed') throw new Error('not resumed');
    delivery.enqueue(transition.event);
    await waitFor(async () => (await delivery.listDead()).some((d) => d.id === transition.event.id), { what: 'the dead letter' });
    const env = { REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: keyPrefix, API_KEYS: 'k' };
    const listed = await runServerCommand(['webhooks', 'dead', '--json'], env);
    expect(listed.code).toBe(0);
    const dead = JSON.parse(listed.stdout) as { id: string; failedAt: string; target: string }[];
    expect(dead.map((l) => l.id)).toEqual([transition.event.id]);
    expect(dead[0]?.target).toBe(receiver.origin);
    expect(new Date(dead[0]!.failedAt).toISOString()).toBe(dead[0]?.failedAt);
    answers.set(sessionId, 200);
    const replayed = await runServerCommand(['webhooks', 'replay', '--all'], env);
    expect([replayed.code, replayed.stdout.trim()]).toEqual([0, 'replayed 1 event(s)']);
    await waitFor(() => requestsFor(sessionId).length === 2, { what: 'the replayed delivery' });
    expect(new Set(requestsFor(sessionId).map((r) => r.headers['webhook-id']))).toEqual(new Set([transition.event.id]));
    const unknown = await runServerCommand(['webhooks', 'replay', 'msg_nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('webhooks dead');
  }, 60_000);
  it('a fresh event goes before a backlog of waiting events: the worker takes it next', async () => {
    const keyPrefix = `delivery-test:${randomUUID()}:`;
    prefixes.push(keyPrefix);
    const common = { client, connection, keyPrefix, relay: false, logger: pino({ enabled: false }) };
    // Queued while no instance delivers (the receiver was unreachable): a backlog of first attempts.
    const producer = createRedisDelivery({ ...common, worker: false });
    deliveries.push(producer);
    const run = randomUUID().slice(0, 8);
    const event = (name: string) => ({
      id: `msg_${randomUUID()}`,
      payload: { event: 'session.resumed' as const, session: { id: `${name}_${run}` }, timestamp: new Date().toISOString() },
    });
    for (let i = 0; i < 30; i++) producer.enqueue(event(`backlog${i}`));
    await waitFor(async () => (await producer.stats()).pending === 30, { what: 'the backlog queued' });
    producer.enqueue(event('fresh'));
    await waitFor(async () => (await producer.stats()).pending === 31, { what: 'the fresh event queued' });
    // One attempt at a time, so the order the receiver sees is the order the queue hands out.
    const worker = createRedisDelivery({ ...common, url: `${receiver.origin}/hook`, allowPrivate: true, ca: receiver.certificate.cert, concurrency: 1 });
    deliveries.push(worker);
    await waitFor(() => receiver.requests.filter((r) => r.body.includes(run)).length === 31, { what: 'all delivered' });
    const order = receiver.requests.filter((r) => r.body.includes(run)).map((r) => (JSON.parse(r.body) as { session: { id: string } }).session.id);
    expect(order[0]).toBe(`fresh_${run}`);
  });
});
