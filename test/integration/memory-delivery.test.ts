/** createMemoryDelivery (the engine on the in-process queue) against real HTTPS receivers on loopback (short schedules). */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { contract, type SessionEvent } from '@session-resume-api/runtime/contract';
import { createMemoryDelivery } from '../../server/webhooks/memory-delivery.js';
import { ENDPOINT_HEALTH_POLICY } from '../../server/webhooks/endpoint-health-policy.js';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { getTestCertificate, startHttpsReceiver, type HttpsReceiver } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';

const ca = getTestCertificate().cert;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const makeEvent = (id = 'sess_paused_1'): SessionEvent => ({
  event: 'session.resumed',
  session: { id },
  timestamp: new Date().toISOString(),
});

interface LogLine {
  level: number;
  msg: string;
  attempt?: number;
  reason?: string;
  nextDelayMs?: number;
  [key: string]: unknown;
}
/** A pino logger that keeps its JSON lines in memory. */
const captureLogger = () => {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
};

const open: HttpsReceiver[] = [];
const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
  const r = await startHttpsReceiver(...args);
  open.push(r);
  return r;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

/** A receiver answering the given statuses in order (the last one repeats). */
const scripted = (...statuses: number[]) => {
  let n = 0;
  return receiver((_req, res) => {
    const status = statuses[Math.min(n++, statuses.length - 1)] ?? 200;
    res.writeHead(status).end();
  });
};

describe('createMemoryDelivery options', () => {
  it('refuses http:// with a message saying webhook URLs must use HTTPS', () => {
    expect(() => createMemoryDelivery({ url: 'http://hooks.example.com/h' })).toThrow(OptionsError);
    expect(() => createMemoryDelivery({ url: 'http://hooks.example.com/h' })).toThrow(/must use HTTPS/);
  });

  it('refuses credentials, and private hosts unless allowPrivate, which is logged as a warning', () => {
    expect(() => createMemoryDelivery({ url: 'https://u:p@hooks.example.com/h' })).toThrow(/credentials/);
    expect(() => createMemoryDelivery({ url: 'https://127.0.0.1/h' })).toThrow(/loopback/);
    const { logger, lines } = captureLogger();
    createMemoryDelivery({ url: 'https://127.0.0.1/h', allowPrivate: true, logger });
    expect(lines.find((l) => l.level === 40)?.msg).toMatch(/allowPrivate is ON/);
  });

  it('enqueue never throws: an invalid or unserializable event is logged and dropped', async () => {
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: 'https://hooks.example.com/h', logger });
    expect(() => delivery.enqueue({ event: 'e' } as unknown as SessionEvent)).not.toThrow();
    expect(() => delivery.enqueue({ ...makeEvent(), big: 1n } as unknown as SessionEvent)).not.toThrow();
    expect(lines.filter((l) => /dropped/.test(l.msg))).toHaveLength(2);
    await delivery.close();
    expect(() => delivery.enqueue(undefined as unknown as SessionEvent)).not.toThrow();
  });

  it('refuses impossible numbers', () => {
    expect(() => createMemoryDelivery({ url: 'https://hooks.example.com/h', schedule: [] })).toThrow(/schedule/);
    expect(() => createMemoryDelivery({ url: 'https://hooks.example.com/h', schedule: [0, -1] })).toThrow(/schedule/);
    expect(() => createMemoryDelivery({ url: 'https://hooks.example.com/h', concurrency: 0 })).toThrow(/concurrency/);
  });
});

describe('createMemoryDelivery delivery', () => {
  it('delivers after enqueue, and enqueue returns at once', async () => {
    const r = await receiver();
    const { logger, lines } = captureLogger();
    // A resolver that takes 300 ms: enqueue must not wait for it.
    const lookup = async () => (await sleep(300), [{ address: '127.0.0.1', family: 4 }]);
    const delivery = createMemoryDelivery({ url: `https://localhost:${r.port}/hooks/secret-token`, allowPrivate: true, ca, logger, lookup });
    const event = makeEvent();
    const t0 = performance.now();
    delivery.enqueue(event);
    const enqueueMs = performance.now() - t0;
    console.info(`[measure] enqueue returned in ${enqueueMs.toFixed(2)} ms`);
    // Well under the 300 ms resolver: enqueue never waits for DNS (the first call also compiles the event schema).
    expect(enqueueMs).toBeLessThan(250);
    expect(r.requests).toHaveLength(0);
    await waitFor(() => r.requests.length === 1, { timeoutMs: 5000 });
    expect(JSON.parse(r.requests[0]?.body ?? '')).toEqual(event);
    await delivery.close();
    expect(lines.find((l) => l.msg === 'webhook delivered')).toMatchObject({ attempt: 1, sessionId: 'sess_paused_1' });
    // The secret path never reaches the logs.
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });

  it('retries 500, 500 then 200 with the identical event every time', async () => {
    const r = await scripted(500, 500, 200);
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, schedule: [0, 50, 100] });
    const event = makeEvent();
    delivery.enqueue(event);
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'), { timeoutMs: 5000 });
    expect(r.requests).toHaveLength(3);
    const bodies = r.requests.map((q) => q.body);
    expect(new Set(bodies).size).toBe(1);
    const sent = JSON.parse(bodies[0] ?? '') as SessionEvent;
    expect(sent).toEqual(event);
    expect(contract.validate('SessionEvent', sent).ok).toBe(true);
    const retries = lines.filter((l) => l.msg === 'webhook attempt failed; will retry');
    expect(retries.map((l) => [l.attempt, l.result, l.status])).toEqual([
      [1, 'http_status', 500],
      [2, 'http_status', 500],
    ]);
    // The schedule, exactly: no jitter.
    expect(retries.map((l) => l.nextDelayMs)).toEqual([50, 100]);
    const gaps = r.requests.slice(1).map((q, i) => q.receivedAt - (r.requests[i]?.receivedAt ?? 0));
    console.info(`[measure] retry gaps ${gaps.join(', ')} ms; planned ${retries.map((l) => l.nextDelayMs).join(', ')} ms`);
    await delivery.close();
  });

  it('follows the Standard Webhooks schedule by default: the first retry is planned 5 s after the first failure', async () => {
    const r = await scripted(500, 200);
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger });
    delivery.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.nextDelayMs !== undefined), { timeoutMs: 5000 });
    expect(lines.find((l) => l.nextDelayMs !== undefined)?.nextDelayMs).toBe(STANDARD_WEBHOOKS_SCHEDULE_MS[1]);
    await delivery.close();
  });

  it('times out a slow receiver and retries', async () => {
    let n = 0;
    const r = await receiver(async (_req, res) => {
      if (n++ === 0) await sleep(1500);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, timeoutMs: 400, schedule: [0, 20] });
    delivery.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'), { timeoutMs: 5000 });
    const failed = lines.find((l) => l.msg === 'webhook attempt failed; will retry');
    expect(failed).toMatchObject({ attempt: 1, result: 'timeout' });
    expect(failed?.durationMs).toBeGreaterThanOrEqual(400);
    expect(lines.find((l) => l.msg === 'webhook delivered')).toMatchObject({ attempt: 2 });
    await delivery.close();
  });

  it('keeps at most `concurrency` attempts in flight and sends a private copy of the event', async () => {
    let inFlight = 0;
    let peak = 0;
    const r = await receiver(async (_req, res) => {
      peak = Math.max(peak, ++inFlight);
      await sleep(100);
      inFlight--;
      res.writeHead(200).end();
    });
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger: captureLogger().logger, concurrency: 2 });
    const events = ['a', 'b', 'c', 'd', 'e'].map((id) => makeEvent(id));
    for (const e of events) delivery.enqueue(e);
    (events[0] as SessionEvent).session.id = 'mutated-after-enqueue';
    await delivery.close();
    expect(r.requests).toHaveLength(5);
    expect(peak).toBe(2);
    expect(r.requests.map((q) => (JSON.parse(q.body) as SessionEvent).session.id).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('moves the event to the dead-letter list once the schedule runs out', async () => {
    const r = await scripted(500);
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, schedule: [0, 10, 10] });
    delivery.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => /dead-letter list/.test(l.msg)), { timeoutMs: 5000 });
    expect(r.requests).toHaveLength(3);
    await delivery.close();
  });
});

describe('createMemoryDelivery bounds (the in-process queue is not durable, and bounded)', () => {
  it('keeps the newest keepDelivered delivered events, and refuses events past maxPending with a log line', async () => {
    const r = await receiver();
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, keepDelivered: 2, maxPending: 1 });
    for (const id of ['m1', 'm2', 'm3']) {
      delivery.enqueue({ id: `msg_${id}`, payload: makeEvent(id) });
      await waitFor(async () => (await delivery.show(`msg_${id}`))?.state === 'delivered', { timeoutMs: 5000 });
    }
    expect(await delivery.show('msg_m1')).toBeUndefined();
    expect((await delivery.list()).map((e) => e.id)).toEqual(['msg_m3', 'msg_m2']);
    expect(await delivery.stats()).toEqual({ pending: 0, delivering: 0, delivered: 2, dead: 0 });
    delivery.enqueue({ id: 'msg_a', payload: makeEvent('a') });
    delivery.enqueue({ id: 'msg_b', payload: makeEvent('b') });
    await waitFor(() => lines.some((l) => /not queued; dropped/.test(l.msg)), { timeoutMs: 5000 });
    expect(lines.find((l) => /not queued; dropped/.test(l.msg))).toMatchObject({ sessionId: 'b' });
    await delivery.close();
  });
});

describe('createMemoryDelivery recovery', () => {
  it('recover --status failed makes a retry waiting for its backoff due now, once', async () => {
    const r = await scripted(500, 200);
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, schedule: [0, 3_600_000], endpointHealth: false });
    delivery.enqueue({ id: 'msg_waiting', payload: makeEvent('waiting') });
    await waitFor(() => lines.some((l) => l.msg === 'webhook attempt failed; will retry'), { timeoutMs: 5000 });
    const window = { since: new Date(Date.now() - 60_000), until: new Date(Date.now() + 60_000), status: 'failed' as const };
    expect(await delivery.recover(window)).toMatchObject({ matched: 1, requeued: 1 });
    await waitFor(async () => (await delivery.show('msg_waiting'))?.state === 'delivered', { timeoutMs: 5000 });
    expect(await delivery.recover(window)).toMatchObject({ matched: 0, requeued: 0 });
    expect(r.requests).toHaveLength(2);
    await delivery.close();
  });

  it('refuses a replay while maxPending events are undelivered, as it refuses a new event', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const r = await receiver(async (request, res) => {
      if ((JSON.parse(request.body) as SessionEvent).session.id === 'slow') await released;
      res.writeHead((JSON.parse(request.body) as SessionEvent).session.id === 'slow' ? 200 : 500).end();
    });
    const delivery = createMemoryDelivery({
      url: `${r.origin}/h`,
      allowPrivate: true,
      ca,
      logger: captureLogger().logger,
      schedule: [0],
      maxPending: 1,
      endpointHealth: false,
    });
    delivery.enqueue({ id: 'msg_dead', payload: makeEvent('dead') });
    await waitFor(async () => (await delivery.show('msg_dead'))?.state === 'dead', { timeoutMs: 5000 });
    delivery.enqueue({ id: 'msg_slow', payload: makeEvent('slow') });
    await waitFor(() => r.requests.length === 2, { timeoutMs: 5000 });
    expect(await delivery.replay('msg_dead')).toBe(false);
    expect(await delivery.show('msg_dead')).toMatchObject({ state: 'dead' });
    release();
    await waitFor(async () => (await delivery.show('msg_slow'))?.state === 'delivered', { timeoutMs: 5000 });
    expect(await delivery.replay('msg_dead')).toBe(true);
    await waitFor(() => r.requests.length === 3, { timeoutMs: 5000 });
    await delivery.close();
  });
});

describe('createMemoryDelivery close', () => {
  it('flushes events enqueued just before close', async () => {
    const r = await receiver();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger: captureLogger().logger });
    for (const id of ['s1', 's2', 's3']) delivery.enqueue(makeEvent(id));
    await delivery.close();
    expect(r.requests.map((q) => (JSON.parse(q.body) as SessionEvent).session.id).sort()).toEqual(['s1', 's2', 's3']);
  });

  it('gives a retry waiting for its backoff one final attempt at close', async () => {
    const r = await scripted(500, 200);
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, schedule: [0, 30_000] });
    delivery.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.msg === 'webhook attempt failed; will retry'), { timeoutMs: 5000 });
    const t0 = performance.now();
    await delivery.close({ timeoutMs: 5000 });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r.requests).toHaveLength(2);
    expect(lines.find((l) => l.msg === 'webhook delivered')).toMatchObject({ attempt: 2 });
  });

  it('logs what is still pending at the close timeout as dropped, and drops events enqueued after close', async () => {
    const r = await receiver(async (_req, res) => {
      await sleep(1500);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const { logger, lines } = captureLogger();
    const delivery = createMemoryDelivery({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, concurrency: 1 });
    delivery.enqueue(makeEvent('slow'));
    delivery.enqueue(makeEvent('queued'));
    await waitFor(() => r.requests.length === 1, { timeoutMs: 5000 });
    const t0 = performance.now();
    await delivery.close({ timeoutMs: 200 });
    const closeMs = performance.now() - t0;
    console.info(`[measure] close({ timeoutMs: 200 }) resolved after ${closeMs.toFixed(0)} ms`);
    expect(closeMs).toBeGreaterThanOrEqual(190);
    expect(closeMs).toBeLessThan(1000);
    const dropped = lines.filter((l) => /close timeout; dropped/.test(l.msg)).map((l) => l.sessionId);
    expect(dropped.sort()).toEqual(['queued', 'slow']);
    delivery.enqueue(makeEvent('late'));
    expect(lines.find((l) => /after close; dropped/.test(l.msg))).toMatchObject({ sessionId: 'late' });
    // The event waiting for a slot is never sent once dropped.
    await sleep(1800);
    expect(r.requests).toHaveLength(1);
  });
});

describe('retry rule', () => {
  it('matches x-decisions: webhook-retry in spec/openapi.yaml', () => {
    const decisions = contract.document['x-decisions'] as { id: string; chosen: string }[];
    const chosen = decisions.find((d) => d.id === 'webhook-retry')?.chosen ?? '';
    expect(chosen).toContain('Standard Webhooks example');
    expect(chosen).toContain(`${STANDARD_WEBHOOKS_SCHEDULE_MS.length} attempts`);
    expect(chosen).toContain('WEBHOOK_RETRY_SCHEDULE');
    expect(chosen).toContain('410 Gone');
  });
});

describe('createMemoryDelivery endpoint health', () => {
  it('a failing endpoint opens the circuit (logged), holds events without using their attempts, and a delivered probe drains them once', async () => {
    let status = 500;
    const r = await receiver((_req, res) => {
      res.writeHead(status).end();
    });
    const { logger, lines } = captureLogger();
    const clock = { now: Date.now() };
    const changes: string[] = [];
    const engine = createMemoryDelivery({
      url: `${r.origin}/hooks`,
      ca,
      allowPrivate: true,
      schedule: [0, 10, 10],
      logger,
      endpointHealth: {
        clock: () => clock.now,
        policy: { ...ENDPOINT_HEALTH_POLICY, openAfterFailures: 3, refreshMs: 10, drainIntervalMs: 0 },
        onChange: (c) => changes.push(c.to),
      },
    });
    for (let i = 0; i < 5; i++) engine.enqueue(makeEvent(`sess_health_${i}`));
    await waitFor(async () => (await engine.endpoint())?.state === 'open', { what: 'the circuit to open' });
    await sleep(300);
    const made = r.requests.length;
    await sleep(300);
    expect(r.requests.length).toBe(made);
    // Held: three attempts each would have made every event dead by now.
    expect((await engine.stats()).dead).toBe(0);
    expect(lines.some((l) => l.msg === 'webhook endpoint failing: deliveries paused, one probe at a time' && l.level === 40)).toBe(true);
    status = 200;
    clock.now = (await engine.endpoint())?.nextProbeAt as number;
    await waitFor(async () => (await engine.stats()).delivered === 5, { what: 'every held event' });
    expect(changes).toEqual(['open', 'closed']);
    const ok = r.requests.slice(made).map((q) => q.headers['webhook-id']);
    expect(new Set(ok).size).toBe(5);
    await engine.close();
  });
});
