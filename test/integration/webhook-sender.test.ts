/** createWebhookSender against real HTTPS receivers on loopback (small backoff delays). */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { contract, type SessionEvent } from '../../spec/contract.js';
import { createWebhookSender, WebhookSenderConfigError } from '../../server/webhooks/create-webhook-sender.js';
import { backoffDelayMs, BACKOFF_FACTOR, WEBHOOK_RETRY_DEFAULTS } from '../../server/webhooks/retry-schedule.js';
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

describe('createWebhookSender options', () => {
  it('refuses http:// with a message saying webhook URLs must use HTTPS', () => {
    expect(() => createWebhookSender({ url: 'http://hooks.example.com/h' })).toThrow(WebhookSenderConfigError);
    expect(() => createWebhookSender({ url: 'http://hooks.example.com/h' })).toThrow(/must use HTTPS/);
  });

  it('refuses credentials, and private hosts unless allowPrivate, which is logged as a warning', () => {
    expect(() => createWebhookSender({ url: 'https://u:p@hooks.example.com/h' })).toThrow(/credentials/);
    expect(() => createWebhookSender({ url: 'https://127.0.0.1/h' })).toThrow(/loopback/);
    const { logger, lines } = captureLogger();
    createWebhookSender({ url: 'https://127.0.0.1/h', allowPrivate: true, logger });
    expect(lines.find((l) => l.level === 40)?.msg).toMatch(/allowPrivate is ON/);
  });

  it('enqueue never throws: an invalid or unserializable event is logged and dropped', async () => {
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: 'https://hooks.example.com/h', logger });
    expect(() => sender.enqueue({ event: 'e' } as unknown as SessionEvent)).not.toThrow();
    expect(() => sender.enqueue({ ...makeEvent(), big: 1n } as unknown as SessionEvent)).not.toThrow();
    expect(lines.filter((l) => /dropped/.test(l.msg))).toHaveLength(2);
    await sender.close();
    expect(() => sender.enqueue(undefined as unknown as SessionEvent)).not.toThrow();
  });

  it('refuses impossible numbers', () => {
    expect(() => createWebhookSender({ url: 'https://hooks.example.com/h', maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => createWebhookSender({ url: 'https://hooks.example.com/h', baseDelayMs: 10, maxDelayMs: 5 })).toThrow(/maxDelayMs/);
  });
});

describe('createWebhookSender delivery', () => {
  it('delivers after enqueue, and enqueue returns at once', async () => {
    const r = await receiver();
    const { logger, lines } = captureLogger();
    // A resolver that takes 300 ms: enqueue must not wait for it.
    const lookup = async () => (await sleep(300), [{ address: '127.0.0.1', family: 4 }]);
    const sender = createWebhookSender({ url: `https://localhost:${r.port}/hooks/secret-token`, allowPrivate: true, ca, logger, lookup });
    const event = makeEvent();
    const t0 = performance.now();
    sender.enqueue(event);
    const enqueueMs = performance.now() - t0;
    console.info(`[measure] enqueue returned in ${enqueueMs.toFixed(2)} ms`);
    expect(enqueueMs).toBeLessThan(20);
    expect(r.requests).toHaveLength(0);
    await waitFor(() => r.requests.length === 1, { timeoutMs: 5000 });
    expect(JSON.parse(r.requests[0]?.body ?? '')).toEqual(event);
    await sender.close();
    expect(lines.find((l) => l.msg === 'webhook delivered')).toMatchObject({ attempt: 1, sessionId: 'sess_paused_1' });
    // The secret path never reaches the logs.
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });

  it('retries 500, 500 then 200 with the identical event every time', async () => {
    const r = await scripted(500, 500, 200);
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, baseDelayMs: 50, maxDelayMs: 200 });
    const event = makeEvent();
    sender.enqueue(event);
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'), { timeoutMs: 5000 });
    expect(r.requests).toHaveLength(3);
    const bodies = r.requests.map((q) => q.body);
    expect(new Set(bodies).size).toBe(1);
    const sent = JSON.parse(bodies[0] ?? '') as SessionEvent;
    expect(sent).toEqual(event);
    expect(contract.validate('SessionEvent', sent).ok).toBe(true);
    const retries = lines.filter((l) => l.msg === 'webhook attempt failed; will retry');
    expect(retries.map((l) => [l.attempt, l.reason])).toEqual([
      [1, 'bad_status'],
      [2, 'bad_status'],
    ]);
    // Full jitter: delay after failure n is below min(cap, base × 2^(n−1)).
    expect(retries[0]?.nextDelayMs).toBeLessThan(50);
    expect(retries[1]?.nextDelayMs).toBeLessThan(100);
    const gaps = r.requests.slice(1).map((q, i) => q.receivedAt - (r.requests[i]?.receivedAt ?? 0));
    console.info(`[measure] retry gaps ${gaps.join(', ')} ms; planned ${retries.map((l) => l.nextDelayMs).join(', ')} ms`);
    await sender.close();
  });

  it('follows the default schedule (base 1 s, factor 2) with a fixed jitter of 0.5', async () => {
    const r = await scripted(500, 500, 200);
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, random: () => 0.5 });
    sender.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'), { timeoutMs: 5000 });
    const planned = lines.filter((l) => l.nextDelayMs !== undefined).map((l) => l.nextDelayMs);
    expect(planned).toEqual([500, 1000]);
    const gaps = r.requests.slice(1).map((q, i) => q.receivedAt - (r.requests[i]?.receivedAt ?? 0));
    console.info(`[measure] default schedule: planned ${planned.join(', ')} ms, measured gaps ${gaps.join(', ')} ms`);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual((planned[i] ?? 0) - 5);
      expect(gap).toBeLessThan((planned[i] ?? 0) + 500);
    });
    await sender.close();
  });

  it('times out a slow receiver and retries', async () => {
    let n = 0;
    const r = await receiver(async (_req, res) => {
      if (n++ === 0) await sleep(1500);
      if (!res.destroyed) res.writeHead(200).end();
    });
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, timeoutMs: 400, baseDelayMs: 20 });
    sender.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'), { timeoutMs: 5000 });
    const failed = lines.find((l) => l.msg === 'webhook attempt failed; will retry');
    expect(failed).toMatchObject({ attempt: 1, reason: 'timeout' });
    expect(failed?.durationMs).toBeGreaterThanOrEqual(400);
    expect(lines.find((l) => l.msg === 'webhook delivered')).toMatchObject({ attempt: 2 });
    await sender.close();
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
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger: captureLogger().logger, concurrency: 2 });
    const events = ['a', 'b', 'c', 'd', 'e'].map((id) => makeEvent(id));
    for (const e of events) sender.enqueue(e);
    (events[0] as SessionEvent).session.id = 'mutated-after-enqueue';
    await sender.close();
    expect(r.requests).toHaveLength(5);
    expect(peak).toBe(2);
    expect(r.requests.map((q) => (JSON.parse(q.body) as SessionEvent).session.id).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('gives up after maxAttempts', async () => {
    const r = await scripted(500);
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, maxAttempts: 3, baseDelayMs: 10 });
    sender.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => /giving up/.test(l.msg)), { timeoutMs: 5000 });
    expect(r.requests).toHaveLength(3);
    await sender.close();
  });
});

describe('createWebhookSender close', () => {
  it('flushes events enqueued just before close', async () => {
    const r = await receiver();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger: captureLogger().logger });
    for (const id of ['s1', 's2', 's3']) sender.enqueue(makeEvent(id));
    await sender.close();
    expect(r.requests.map((q) => (JSON.parse(q.body) as SessionEvent).session.id).sort()).toEqual(['s1', 's2', 's3']);
  });

  it('gives a retry waiting for its backoff one final attempt at close', async () => {
    const r = await scripted(500, 200);
    const { logger, lines } = captureLogger();
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, baseDelayMs: 30_000, random: () => 0.99 });
    sender.enqueue(makeEvent());
    await waitFor(() => lines.some((l) => l.msg === 'webhook attempt failed; will retry'), { timeoutMs: 5000 });
    const t0 = performance.now();
    await sender.close({ timeoutMs: 5000 });
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
    const sender = createWebhookSender({ url: `${r.origin}/h`, allowPrivate: true, ca, logger, concurrency: 1 });
    sender.enqueue(makeEvent('slow'));
    sender.enqueue(makeEvent('queued'));
    await waitFor(() => r.requests.length === 1, { timeoutMs: 5000 });
    const t0 = performance.now();
    await sender.close({ timeoutMs: 200 });
    const closeMs = performance.now() - t0;
    console.info(`[measure] close({ timeoutMs: 200 }) resolved after ${closeMs.toFixed(0)} ms`);
    expect(closeMs).toBeGreaterThanOrEqual(190);
    expect(closeMs).toBeLessThan(1000);
    const dropped = lines.filter((l) => /close timeout; dropped/.test(l.msg)).map((l) => l.sessionId);
    expect(dropped.sort()).toEqual(['queued', 'slow']);
    sender.enqueue(makeEvent('late'));
    expect(lines.find((l) => /after close; dropped/.test(l.msg))).toMatchObject({ sessionId: 'late' });
    // The event waiting for a slot is never sent once dropped.
    await sleep(1800);
    expect(r.requests).toHaveLength(1);
  });
});

describe('retry schedule', () => {
  it('is full jitter under min(cap, base × 2^(n−1))', () => {
    const max = () => 0.999999;
    expect(backoffDelayMs(1, WEBHOOK_RETRY_DEFAULTS, max)).toBe(999);
    expect(backoffDelayMs(3, WEBHOOK_RETRY_DEFAULTS, max)).toBe(3999);
    expect(backoffDelayMs(10, WEBHOOK_RETRY_DEFAULTS, max)).toBe(59_999);
    expect(backoffDelayMs(4, WEBHOOK_RETRY_DEFAULTS, () => 0)).toBe(0);
  });

  it('matches x-decisions: webhook-retry in spec/openapi.yaml', () => {
    const decisions = contract.document['x-decisions'] as { id: string; chosen: string }[];
    const chosen = decisions.find((d) => d.id === 'webhook-retry')?.chosen ?? '';
    const { baseDelayMs, maxDelayMs, maxAttempts } = WEBHOOK_RETRY_DEFAULTS;
    expect(chosen).toContain(`base ${baseDelayMs / 1000} s, factor ${BACKOFF_FACTOR}, cap ${maxDelayMs / 1000} s`);
    expect(chosen).toContain(`at most ${maxAttempts} attempts`);
    expect(chosen).toContain('full jitter');
  });
});
