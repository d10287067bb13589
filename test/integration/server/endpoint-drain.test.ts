/**
 * The endpoint's held backlog (x-decisions: endpoint-health), on Redis with two delivery engines
 * (two instances) and in memory, with an injected clock: events held while the endpoint failed
 * arrive, once it delivers again, in the order they were due (a drain window of one event in
 * flight); past `maxHeldEvents` an event goes to the dead letters
 * (`held_overflow`) and arrives once when recovered. Nothing waits out a real interval: each step
 * waits for the events themselves, and no assertion is about time.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import type { DeliveryEngine } from '../../../server/webhooks/delivery-engine.js';
import type { HeldOverflow } from '../../../server/webhooks/endpoint-backlog.js';
import { ENDPOINT_HEALTH_POLICY, type EndpointHealthPolicy } from '../../../server/webhooks/endpoint-health-policy.js';
import { createEndpointNotifier } from '../../../server/webhooks/endpoint-notifier.js';
import { createMemoryDelivery } from '../../../server/webhooks/memory-delivery.js';
import { createRedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Short real retries, never running out. */
const SCHEDULE = [0, ...Array.from({ length: 99 }, () => 20)];
/** One failure opens the circuit; the drain lets one event go at a time (a window of one). */
const POLICY: EndpointHealthPolicy = { ...ENDPOINT_HEALTH_POLICY, refreshMs: 20, openAfterFailures: 1, drainFirstWindow: 1, drainMaxWindow: 1 };

let client: Redis;
let connection: Redis;
let receiver: HttpsReceiver;
let status = 500;
/** webhook-ids answered 200, in the order they arrived. */
const delivered: string[] = [];
const prefixes: string[] = [];
const engines: DeliveryEngine[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startHttpsReceiver((request, res) => {
    // The operator's notices go to /ops, always answered.
    if (request.path === '/ops') return void res.writeHead(200).end('{}');
    if (status === 200) delivered.push(String(request.headers['webhook-id']));
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
});

afterEach(async () => {
  status = 500;
  delivered.length = 0;
  await Promise.all(engines.splice(0).map((engine) => engine.close({ timeoutMs: 2000 })));
});

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await receiver.close();
  await client.quit();
  await connection.quit();
});

interface Setup {
  /** The engines: each event is enqueued on the next one in turn. */
  engines: DeliveryEngine[];
  clock: { now: number };
  overflows: HeldOverflow[];
  /** Resolves when the operator's notices under way are answered. */
  noticesSent: () => Promise<void>;
  /** Notices of this setup, as POSTed to /ops. */
  notices: () => { event: string; endpoint: string; maxHeldEvents?: number }[];
}

/** Two Redis instances on one key prefix, or one memory delivery, sharing one injected clock. */
function start(kind: 'redis' | 'memory', policy: EndpointHealthPolicy): Setup {
  const clock = { now: Date.now() };
  const overflows: HeldOverflow[] = [];
  const logger = pino({ enabled: false });
  const notifier = createEndpointNotifier({ url: `${receiver.origin}/ops`, ca: receiver.certificate.cert, allowPrivate: true, logger });
  const common = {
    url: `${receiver.origin}/hooks`,
    ca: receiver.certificate.cert,
    allowPrivate: true,
    schedule: SCHEDULE,
    logger,
    endpointHealth: {
      policy,
      clock: () => clock.now,
      onOverflow: (overflow: HeldOverflow) => {
        overflows.push(overflow);
        notifier.overflowed(overflow);
      },
    },
  };
  const keyPrefix = `endpoint-drain:${randomUUID()}:`;
  if (kind === 'redis') prefixes.push(keyPrefix);
  const made =
    kind === 'redis'
      ? [0, 1].map(() => createRedisDelivery({ ...common, client, connection, keyPrefix, relay: false }))
      : [createMemoryDelivery({ ...common, concurrency: 1 })];
  engines.push(...made);
  // This setup's notices: those with the time of one of its overflows.
  const notices = () =>
    receiver.requests
      .filter((r) => r.path === '/ops' && overflows.some((o) => r.body.includes(o.at)))
      .map((r) => JSON.parse(r.body) as { event: string; endpoint: string; maxHeldEvents?: number });
  return { engines: made, clock, overflows, noticesSent: () => notifier.sent(), notices };
}

/** Enqueues one event on engine `turn` (in turn) and returns its webhook-id. */
function enqueue(setup: Setup, turn: number): string {
  const id = `msg_${randomUUID()}`;
  const payload: SessionEvent = { event: 'session.resumed', session: { id: `drain_${turn}` }, timestamp: new Date().toISOString() };
  setup.engines[turn % setup.engines.length]!.enqueue({ id, payload });
  return id;
}

const health = (setup: Setup) => setup.engines[0]!.endpoint();

/** Opens the circuit with a first event, then holds `more` events, each due after the one before; returns their ids in due order. */
async function holdEvents(setup: Setup, more: number): Promise<string[]> {
  const ids = [enqueue(setup, 0)];
  await waitFor(async () => (await health(setup))?.state === 'open', { what: 'the circuit to open' });
  // The first event's retry is held at its due time; each next event is queued (due) after the last one was held.
  await waitFor(async () => (await health(setup))?.held === 1, { what: 'the first event held' });
  for (let turn = 1; turn <= more; turn++) {
    const before = Date.now();
    await waitFor(() => Date.now() > before + 1, { intervalMs: 1, what: 'a later millisecond' });
    ids.push(enqueue(setup, turn));
    // Held, or past the bound a dead letter.
    await waitFor(async () => ((await health(setup))?.held ?? 0) + (await setup.engines[0]!.stats()).dead === turn + 1, { what: `event ${turn} held` });
  }
  return ids;
}

/** Nothing in flight: every event is held, delivered or dead. */
async function quiet(setup: Setup, total: number): Promise<void> {
  await waitFor(
    async () => {
      const [now, stats] = await Promise.all([health(setup), setup.engines[0]!.stats()]);
      return (now?.held ?? 0) + stats.delivered + stats.dead === total && stats.delivering === 0;
    },
    { what: 'nothing in flight' },
  );
}

/** The endpoint delivers again: the probe is the earliest held event; then the drain, clocked by the deliveries. */
async function recoverAndDrain(setup: Setup, total: number): Promise<void> {
  status = 200;
  setup.clock.now = (await health(setup))?.nextProbeAt as number;
  await waitFor(async () => (await health(setup))?.state === 'closed' && delivered.length >= 1, { what: 'the probe delivered' });
  await waitFor(async () => (await health(setup))?.held === 0, { what: 'the backlog released' });
  await quiet(setup, total);
  // The release after the last delivery finds the backlog empty and ends the drain.
  await waitFor(async () => (await health(setup))?.drainAt === undefined, { what: 'the drain ended' });
}

describe.each(['redis', 'memory'] as const)('the held backlog (%s)', (kind) => {
  it('after an outage the held events arrive in the order they were due, one release at a time, each once', async () => {
    const setup = start(kind, POLICY);
    const ids = await holdEvents(setup, 5);
    await recoverAndDrain(setup, ids.length);
    expect(delivered).toEqual(ids);
    expect(await health(setup)).toMatchObject({ state: 'closed', held: 0 });
    expect((await health(setup))?.drainAt).toBeUndefined();
  }, 60_000);

  it('past maxHeldEvents an event goes to the dead letters (held_overflow), logged and counted; recovered, it arrives once', async () => {
    const policy = { ...POLICY, maxHeldEvents: 3 };
    const setup = start(kind, policy);
    const ids = await holdEvents(setup, 6);
    expect((await health(setup))?.held).toBe(3);
    const dead = await setup.engines[0]!.listDead();
    expect(dead.map((d) => d.id)).toEqual(ids.slice(3));
    for (const letter of dead) expect(letter.reason).toMatch(/^held_overflow: /);
    // No request was made: no attempt is counted, and the history says what happened.
    expect(dead.map((d) => d.attempts)).toEqual(ids.slice(3).map(() => 0));
    for (const letter of dead) {
      const history = (await setup.engines[0]!.show(letter.id))?.attempts;
      expect(history).toEqual([expect.objectContaining({ result: 'held_overflow', reason: letter.reason })]);
    }
    expect(setup.overflows.map((o) => o.id).sort()).toEqual(ids.slice(3).sort());
    expect(delivered).toEqual([]);
    // The operator is notified once per instance, at its first overflow of the outage (either instance's worker may take any event).
    await setup.noticesSent();
    const notices = setup.notices();
    const firsts = setup.overflows.filter((o) => o.first).length;
    expect(firsts).toBeGreaterThanOrEqual(1);
    expect(firsts).toBeLessThanOrEqual(setup.engines.length);
    expect(notices).toHaveLength(firsts);
    for (const notice of notices) {
      expect(contract.validate('EndpointNotice', notice).ok).toBe(true);
      expect(notice).toMatchObject({ event: 'webhook.endpoint.backlog_full', maxHeldEvents: 3 });
    }

    await recoverAndDrain(setup, ids.length);
    expect(delivered).toEqual(ids.slice(0, 3));
    const recovered = await setup.engines[0]!.recover({ since: new Date(0), until: new Date(Date.now() + 60_000), status: 'dead' });
    expect(recovered.requeued).toBe(4);
    await waitFor(() => delivered.length === ids.length, { what: 'the recovered events' });
    await quiet(setup, ids.length);
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect((await setup.engines[0]!.stats()).dead).toBe(0);
  }, 60_000);
});
