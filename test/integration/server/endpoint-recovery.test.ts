/**
 * Recovery of the webhook endpoint after an outage (x-decisions: endpoint-health), on Redis and
 * in memory with an injected clock: a 5 s blip and a 2-hour outage each deliver every event
 * once, in the order it was due, the first probe no later than the schedule's second step and a
 * recovered endpoint waiting at most the policy's share of its outage (capped); events resumed
 * right after `enable` do not wait behind a large backlog; an instance killed (SIGKILL) while it
 * releases the backlog loses and doubles nothing. No assertion is about real time: the waits
 * asserted are the injected clock's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { redisKeys } from '../../../server/redis/redis-keys.js';
import { PARK_OFFSET_MS } from '../../../server/webhooks/bullmq-backlog.js';
import { DELIVERY_QUEUE_NAME } from '../../../server/webhooks/bullmq-queue.js';
import type { DeliveryEngine } from '../../../server/webhooks/delivery-engine.js';
import { ENDPOINT_HEALTH_POLICY, type EndpointHealthPolicy } from '../../../server/webhooks/endpoint-health-policy.js';
import { createMemoryDelivery } from '../../../server/webhooks/memory-delivery.js';
import { createRedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** Short real retries, never running out. */
const SCHEDULE = [0, ...Array.from({ length: 99 }, () => 20)];
const HOUR = 3_600_000;

let client: Redis;
let connection: Redis;
let receiver: HttpsReceiver;
let status = 503;
/** Delay before each answer, in ms. */
let answerDelayMs = 0;
/** webhook-ids answered 200 whose answer was written whole, in order. */
const acknowledged: string[] = [];
/** webhook-ids answered with a failure. */
const failed = new Set<string>();
const prefixes: string[] = [];
const engines: DeliveryEngine[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startHttpsReceiver(async (request, res) => {
    const id = String(request.headers['webhook-id']);
    const answer = status;
    if (answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
    if (answer !== 200) failed.add(id);
    // Acknowledged only when the whole answer went out on a live connection (a killed sender got none).
    if (answer === 200) res.once('finish', () => acknowledged.push(id));
    res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
  });
});

afterEach(async () => {
  status = 503;
  answerDelayMs = 0;
  acknowledged.length = 0;
  failed.clear();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(engines.splice(0).map((engine) => engine.close({ timeoutMs: 2000 })));
});

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await receiver.close();
  await client.quit();
  await connection.quit();
});

interface Setup {
  engine: DeliveryEngine;
  clock: { now: number };
  keyPrefix: string;
}

/** One instance (concurrency 1, so arrivals follow release order) with an injected clock. */
function start(
  kind: 'redis' | 'memory',
  policy: Partial<EndpointHealthPolicy>,
  extra: { refreshMs?: number; concurrency?: number; realClock?: boolean } = {},
): Setup {
  const clock = { now: Date.now() };
  const common = {
    url: `${receiver.origin}/hooks`,
    ca: receiver.certificate.cert,
    allowPrivate: true,
    schedule: SCHEDULE,
    concurrency: extra.concurrency ?? 1,
    logger: pino({ enabled: false }),
    endpointHealth: { policy: { ...ENDPOINT_HEALTH_POLICY, refreshMs: extra.refreshMs ?? 20, ...policy }, clock: extra.realClock ? Date.now : () => clock.now },
  };
  const keyPrefix = `endpoint-recovery:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const engine = kind === 'redis' ? createRedisDelivery({ ...common, client, connection, keyPrefix, relay: false }) : createMemoryDelivery(common);
  engines.push(engine);
  return { engine, clock, keyPrefix };
}

function enqueue(engine: DeliveryEngine, tag: string): string {
  const id = `msg_${randomUUID()}`;
  const payload: SessionEvent = { event: 'session.resumed', session: { id: `recovery_${tag}` }, timestamp: new Date().toISOString() };
  engine.enqueue({ id, payload });
  return id;
}

/** Opens the circuit with a first event, then holds `more`, each due after the one before; their ids in due order. */
async function holdEvents(setup: Setup, more: number): Promise<string[]> {
  const ids = [enqueue(setup.engine, '0')];
  await waitFor(async () => (await setup.engine.endpoint())?.state === 'open', { what: 'the circuit to open' });
  await waitFor(async () => (await setup.engine.endpoint())?.held === 1, { what: 'the first event held' });
  for (let turn = 1; turn <= more; turn++) {
    const before = Date.now();
    await waitFor(() => Date.now() > before + 1, { intervalMs: 1, what: 'a later millisecond' });
    ids.push(enqueue(setup.engine, String(turn)));
    await waitFor(async () => (await setup.engine.endpoint())?.held === turn + 1, { what: `event ${turn} held` });
  }
  return ids;
}

/** Each id acknowledged once, and the ids never attempted before recovery in the order they were due. */
function expectOnceInDueOrder(ids: string[], probed: Set<string>): void {
  expect([...acknowledged].sort()).toEqual([...ids].sort());
  const fresh = (list: string[]) => list.filter((id) => !probed.has(id));
  expect(fresh(acknowledged)).toEqual(fresh(ids));
}

describe.each(['redis', 'memory'] as const)('recovery after a 5 s blip (%s)', (kind) => {
  it("the first probe comes no later than the schedule's second step: the blip's events arrive once each, in due order, without waiting past it", async () => {
    const setup = start(kind, { openAfterFailures: 1 });
    const ids = await holdEvents(setup, 20);
    const health = await setup.engine.endpoint();
    const openedAt = health?.changedAt as number;
    expect((health?.nextProbeAt as number) - openedAt).toBeLessThanOrEqual(WEBHOOK_DELIVERY_POLICY.retry.scheduleMs[1]!);
    // The endpoint answers again 5 s after the outage began: the first probe is due by then.
    const recoveredAt = openedAt + 5_000;
    status = 200;
    setup.clock.now = recoveredAt;
    expect(Math.max(0, (health?.nextProbeAt as number) - recoveredAt)).toBe(0);
    await waitFor(() => acknowledged.length === ids.length, { what: 'every held event' });
    await waitFor(async () => (await setup.engine.endpoint())?.held === 0, { what: 'an empty backlog' });
    expectOnceInDueOrder(ids, failed);
  }, 60_000);
});

describe('recovery after a 2-hour outage (redis)', () => {
  it('probes follow the outage (a tenth of it, at most a minute): the endpoint back just after a probe waits at most a minute; every event arrives once, in due order', async () => {
    const setup = start('redis', { openAfterFailures: 1 });
    const ids = await holdEvents(setup, 10);
    const openedAt = (await setup.engine.endpoint())?.changedAt as number;
    const recoveredAt = openedAt + 2 * HOUR;
    let health = await setup.engine.endpoint();
    const gaps: number[] = [];
    const outages: number[] = [];
    // Probes fail until the endpoint recovers, each after a share of the outage so far.
    while ((health?.nextProbeAt as number) <= recoveredAt) {
      const due = health?.nextProbeAt as number;
      const probes = health?.probes ?? 0;
      setup.clock.now = due;
      await waitFor(async () => ((health = await setup.engine.endpoint())?.probes ?? 0) > probes, {
        what: `the probe at ${due - openedAt} ms`,
        timeoutMs: 10_000,
      });
      gaps.push((health?.nextProbeAt as number) - due);
      outages.push(due - openedAt);
    }
    expect(Math.max(...gaps)).toBeLessThanOrEqual(60_000);
    // Each at most a share of the outage so far (or the floor).
    gaps.forEach((gap, i) =>
      expect(gap).toBeLessThanOrEqual(Math.max(ENDPOINT_HEALTH_POLICY.minProbeIntervalMs, Math.round(outages[i]! * ENDPOINT_HEALTH_POLICY.probeIntervalShare))),
    );
    status = 200;
    // The wait of a recovered endpoint: until the next probe.
    const wait = (health?.nextProbeAt as number) - recoveredAt;
    expect(wait).toBeLessThanOrEqual(60_000);
    setup.clock.now = health?.nextProbeAt as number;
    await waitFor(() => acknowledged.length === ids.length, { what: 'every held event' });
    expectOnceInDueOrder(ids, failed);
  }, 120_000);
});

describe('events resumed right after enable (redis)', () => {
  it('do not wait behind a large backlog: they arrive while it drains', async () => {
    const setup = start('redis', { openAfterFailures: 1 }, { refreshMs: 1000, concurrency: 10, realClock: true });
    status = 410;
    enqueue(setup.engine, 'gone');
    await waitFor(async () => (await setup.engine.endpoint())?.state === 'disabled', { what: 'the endpoint disabled' });
    const backlog = Array.from({ length: 1500 }, (_, i) => enqueue(setup.engine, `held_${i}`));
    await waitFor(async () => (await setup.engine.endpoint())?.held === backlog.length, { what: 'the backlog held', timeoutMs: 30_000 });
    status = 200;
    // The operator's enable, from another process's engine (the CLI): this instance's copy of the state is up to a second old.
    const cli = createRedisDelivery({ client, connection, keyPrefix: setup.keyPrefix, worker: false, relay: false, logger: pino({ enabled: false }) });
    engines.push(cli);
    await cli.enableEndpoint();
    const fresh = Array.from({ length: 5 }, (_, i) => enqueue(setup.engine, `fresh_${i}`));
    await waitFor(() => acknowledged.length === backlog.length + fresh.length, { what: 'every event', timeoutMs: 60_000 });
    const lastBacklog = Math.max(...backlog.map((id) => acknowledged.indexOf(id)));
    for (const id of fresh) expect(acknowledged.indexOf(id)).toBeLessThan(lastBacklog);
  }, 120_000);
});

describe('an instance killed while it releases the backlog (redis, two processes)', () => {
  it('loses and doubles nothing: the release it left half done is taken again, every acknowledged event once', async () => {
    const keyPrefix = `endpoint-recovery:${randomUUID()}:`;
    prefixes.push(keyPrefix);
    const keys = redisKeys(keyPrefix);
    // A large first window: the whole backlog goes in one release, which the test interrupts.
    const policy = { openAfterFailures: 1, refreshMs: 50, firstProbeAfterMs: 100, minProbeIntervalMs: 100, drainFirstWindow: 3000, drainMaxWindow: 3000 };
    const config = { redisUrl: inject('redisUrl'), keyPrefix, url: `${receiver.origin}/hooks`, ca: receiver.certificate.cert, schedule: SCHEDULE, policy };
    const spawnInstance = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/delivery-instance.ts', JSON.stringify(config)], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`instance exited with ${code}`)));
      });
      return child;
    };
    const pair = [await spawnInstance(), await spawnInstance()];
    const producer = createRedisDelivery({ client, connection, keyPrefix, worker: false, relay: false, schedule: SCHEDULE, logger: pino({ enabled: false }) });
    engines.push(producer);
    const ids = Array.from({ length: 2000 }, (_, i) => enqueue(producer, `kill_${i}`));
    await waitFor(async () => (await producer.endpoint())?.held === ids.length, { what: 'the backlog held', timeoutMs: 60_000 });
    // Answers take a while: an attempt under way in the killed process gets none.
    answerDelayMs = 200;
    status = 200;
    let lease: string | null = null;
    await waitFor(async () => (lease = await client.get(keys.heldLease)) !== null && (await client.zcard(keys.heldReleasing)) > 0, {
      intervalMs: 1,
      what: 'a release under way',
      timeoutMs: 30_000,
    });
    const pid = Number(String(lease).split(':')[0]);
    const victim = pair.find((child) => child.pid === pid);
    expect(victim).toBeDefined();
    victim!.kill('SIGKILL');
    await waitFor(() => new Set(acknowledged).size === ids.length, { what: 'every event acknowledged', timeoutMs: 90_000 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect([...acknowledged].sort()).toEqual([...ids].sort());
    expect(await client.zcard(keys.held)).toBe(0);
  }, 150_000);
});

describe('held events an earlier version parked (redis)', () => {
  it('are recorded in the held backlog at the first start and delivered once, in due order', async () => {
    const keyPrefix = `endpoint-recovery:${randomUUID()}:`;
    prefixes.push(keyPrefix);
    // Parked as the earlier version did: far in BullMQ's delayed set, recorded nowhere else.
    const queue = new Queue(DELIVERY_QUEUE_NAME, { connection, prefix: redisKeys(keyPrefix).queuePrefix });
    const ids = Array.from({ length: 3 }, () => `msg_${randomUUID()}`);
    const now = Date.now();
    for (const [i, id] of ids.entries()) {
      const payload: SessionEvent = { event: 'session.resumed', session: { id: `parked_${i}` }, timestamp: new Date().toISOString() };
      await queue.add(
        'session-event',
        { payload, dueAt: now + i },
        { jobId: id, delay: PARK_OFFSET_MS, attempts: SCHEDULE.length, backoff: { type: 'engine' } },
      );
    }
    await queue.close();
    status = 200;
    const engine = createRedisDelivery({
      client,
      connection,
      keyPrefix,
      url: `${receiver.origin}/hooks`,
      ca: receiver.certificate.cert,
      allowPrivate: true,
      schedule: SCHEDULE,
      relay: false,
      concurrency: 1,
      logger: pino({ enabled: false }),
    });
    engines.push(engine);
    await waitFor(() => acknowledged.length === ids.length, { what: 'the parked events delivered' });
    expect(acknowledged).toEqual(ids);
  }, 60_000);
});
