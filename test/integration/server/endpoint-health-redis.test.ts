/**
 * The endpoint's circuit on Redis, shared by two delivery engines (two instances) delivering to
 * one HTTPS receiver, with an injected clock: no test waits out a probe interval or a day.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import type { EndpointChange } from '../../../server/webhooks/endpoint-circuit.js';
import { ENDPOINT_HEALTH_POLICY } from '../../../server/webhooks/endpoint-health-policy.js';
import { createEndpointNotifier } from '../../../server/webhooks/endpoint-notifier.js';
import { createRedisDelivery, type RedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('endpoint-health-secret-0123456789').toString('base64')}`;
const DAY = 86_400_000;
/** Short real retries, long enough a schedule that no event runs out during a simulated day. */
const SCHEDULE = [0, ...Array.from({ length: 99 }, () => 20)];
/** The drain's releases follow the injected clock, which these tests move only for probes: no wait between releases. */
const POLICY = { ...ENDPOINT_HEALTH_POLICY, refreshMs: 20, drainIntervalMs: 0 };

let client: Redis;
let connection: Redis;
let receiver: HttpsReceiver;
let status = 200;
const prefixes: string[] = [];
const engines: RedisDelivery[] = [];

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startHttpsReceiver((request, res) => {
    res.writeHead(request.path === '/ops' ? 200 : status, { 'content-type': 'application/json' }).end('{}');
  });
});

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close({ timeoutMs: 2000 })));
});

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await receiver.close();
  await client.quit();
  await connection.quit();
});

/** Two instances on one key prefix with one fake clock, notifying the operator at /ops. */
function startInstances() {
  const keyPrefix = `endpoint-health:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const clock = { now: Date.now() };
  const changes: EndpointChange[] = [];
  const logger = pino({ enabled: false });
  const notifier = createEndpointNotifier({ url: `${receiver.origin}/ops`, secret: SECRET, ca: receiver.certificate.cert, allowPrivate: true, logger });
  const make = () =>
    createRedisDelivery({
      client,
      connection,
      keyPrefix,
      url: `${receiver.origin}/hooks`,
      ca: receiver.certificate.cert,
      allowPrivate: true,
      secret: SECRET,
      schedule: SCHEDULE,
      relay: false,
      logger,
      endpointHealth: {
        policy: POLICY,
        clock: () => clock.now,
        onChange: (change) => {
          changes.push(change);
          notifier.notify(change);
        },
      },
    });
  const pair = [make(), make()] as const;
  engines.push(...pair);
  const sessionTag = randomUUID();
  const ids: string[] = [];
  const enqueue = (count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `msg_${randomUUID()}`;
      const payload: SessionEvent = { event: 'session.resumed', session: { id: `${sessionTag}-${i}` }, timestamp: new Date().toISOString() };
      pair[i % 2]!.enqueue({ id, payload });
      ids.push(id);
    }
  };
  const hooks = () => receiver.requests.filter((r) => r.path === '/hooks' && r.body.includes(sessionTag));
  return { pair, clock, changes, notifier, enqueue, ids, hooks, health: () => pair[0].endpoint() };
}

/** Every id answered 200 exactly once. */
function deliveredOnce(requests: { headers: Record<string, string | string[] | undefined> }[], answered: Set<string>, ids: string[]) {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const id = String(r.headers['webhook-id']);
    if (answered.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return ids.every((id) => counts.get(id) === 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until no request arrived for 400 ms (attempts admitted before the circuit opened have landed); returns the count. */
async function settled(count: () => number): Promise<number> {
  for (let seen = -1; seen !== count();) {
    seen = count();
    await sleep(400);
  }
  return count();
}

describe('endpoint health on Redis, two instances', () => {
  it('an endpoint down for a simulated day is paused, probed on an interval that follows the outage, then disabled, with notices; after enable every held event arrives once', async () => {
    status = 500;
    const run = startInstances();
    const start = run.clock.now;
    run.enqueue(30);
    await waitFor(async () => (await run.health())?.state === 'open', { what: 'the circuit to open', timeoutMs: 15_000 });
    const afterOpen = await settled(() => run.hooks().length);
    await sleep(500);
    expect(run.hooks().length).toBe(afterOpen);

    const gaps: number[] = [];
    let last = start;
    for (let probe = 0; probe < 200; probe++) {
      const health = await run.health();
      if (health?.state !== 'open') break;
      // Once the interval reached its cap, the rest of the day in one step.
      run.clock.now = gaps.length >= 40 ? Math.max(health.nextProbeAt as number, start + DAY) : (health.nextProbeAt as number);
      gaps.push(run.clock.now - last);
      last = run.clock.now;
      const before = run.hooks().length;
      await waitFor(async () => run.hooks().length > before && (await run.health())?.nextProbeAt !== health.nextProbeAt, {
        what: `probe ${probe + 1}`,
        timeoutMs: 10_000,
      });
      await sleep(60);
      // One probe at a time, whichever instance claimed it.
      expect(run.hooks().length).toBe(before + 1);
    }
    const disabled = await run.health();
    expect(disabled).toMatchObject({ state: 'disabled', reason: 'failing_too_long' });
    expect(run.clock.now - start).toBeGreaterThanOrEqual(DAY);
    const ramp = gaps.slice(0, 40);
    expect(ramp[0]).toBe(POLICY.firstProbeAfterMs);
    expect(Math.min(...ramp.slice(1))).toBe(POLICY.minProbeIntervalMs);
    expect(Math.max(...ramp)).toBe(POLICY.maxProbeIntervalMs);

    // Disabled: no probe, whatever the time.
    run.clock.now += 7 * DAY;
    const quiet = run.hooks().length;
    await sleep(300);
    expect(run.hooks().length).toBe(quiet);
    expect((await run.pair[1].stats()).dead).toBe(0);

    await run.notifier.sent();
    const notices = receiver.requests.filter((r) => r.path === '/ops' && run.changes.some((c) => r.body.includes(c.at)));
    expect(notices.map((r) => (JSON.parse(r.body) as { to: string }).to)).toEqual(['open', 'disabled']);
    for (const notice of notices)
      expect(new Webhook(SECRET).verify(notice.body, notice.headers as Record<string, string>)).toMatchObject({ event: 'webhook.endpoint.state_changed' });
    expect(run.changes.map((c) => [c.from, c.to])).toEqual([
      ['closed', 'open'],
      ['open', 'disabled'],
    ]);

    status = 200;
    const answered = new Set(run.ids);
    const enabledAt = run.hooks().length;
    expect(await run.pair[1].enableEndpoint()).toMatchObject({ state: 'closed', streak: 0 });
    await waitFor(async () => (await run.pair[0].stats()).delivered === 30, { what: 'every held event', timeoutMs: 20_000 });
    expect(deliveredOnce(run.hooks().slice(enabledAt), answered, run.ids)).toBe(true);
  }, 120_000);

  it('a 410 disables the endpoint: the event that got it is a dead letter, the others are held, none is lost', async () => {
    status = 410;
    const run = startInstances();
    run.enqueue(6);
    await waitFor(async () => (await run.health())?.state === 'disabled', { what: 'the endpoint disabled', timeoutMs: 15_000 });
    expect(await run.health()).toMatchObject({ state: 'disabled', reason: 'gone' });
    const made = await settled(() => run.hooks().length);
    await sleep(500);
    expect(run.hooks().length).toBe(made);
    const stats = await run.pair[0].stats();
    expect(stats.dead + stats.pending).toBe(6);
    status = 200;
    await run.pair[0].enableEndpoint();
    await run.pair[0].replayAll();
    await waitFor(async () => (await run.pair[0].stats()).delivered === 6, { what: 'every event', timeoutMs: 15_000 });
  }, 60_000);

  it('a 429 storm opens the circuit: attempts drop to one probe per interval, and the backlog drains once a probe succeeds', async () => {
    status = 429;
    const run = startInstances();
    run.enqueue(40);
    await waitFor(async () => (await run.health())?.state === 'open', { what: 'the circuit to open', timeoutMs: 15_000 });
    expect((await run.health())?.reason).toBe('slow_down');
    const opened = await settled(() => run.hooks().length);
    // Unpaused, 40 events retried every 20 ms would make hundreds of attempts in this second.
    await sleep(1000);
    expect(run.hooks().length).toBe(opened);
    expect(opened).toBeLessThanOrEqual(2 * 40);
    status = 200;
    run.clock.now = (await run.health())?.nextProbeAt as number;
    await waitFor(async () => (await run.pair[0].stats()).delivered === 40, { what: 'the backlog', timeoutMs: 20_000 });
    expect(await run.health()).toMatchObject({ state: 'closed', streak: 0 });
    expect(run.changes.map((c) => c.to)).toEqual(['open', 'closed']);
  }, 60_000);
});
