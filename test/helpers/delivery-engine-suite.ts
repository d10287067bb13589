/**
 * The one behaviour suite every delivery queue must pass through the engine: schedule,
 * Retry-After, 410, dead letter, replay keeping the webhook-id, attempt history and the
 * observer. Run against the in-process queue and the BullMQ queue, with a real HTTPS receiver.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { DeliveryEngine } from '../../server/webhooks/delivery-engine.js';
import type { DeliveryAttempt, DeliveryObserver } from '../../server/webhooks/delivery-types.js';
import { startHttpsReceiver, type HttpsReceiver } from './tls.js';
import { waitFor } from './wait-for.js';

/** What a suite run needs to build an engine delivering to `url`. */
export interface EngineSetup {
  url: string;
  ca: string;
  schedule: number[];
  observer: DeliveryObserver;
}

/** One scripted answer: a status, optional headers and body. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Registers the suite; `makeEngine` returns a fresh engine (its own queue) for each test. */
export function deliveryEngineSuite(name: string, makeEngine: (setup: EngineSetup) => Promise<DeliveryEngine>): void {
  let receiver: HttpsReceiver;
  /** Answers per session id, consumed in order; the last one repeats. */
  const scripts = new Map<string, Answer[]>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver((request, res) => {
      const sessionId = (JSON.parse(request.body) as SessionEvent).session.id;
      const script = scripts.get(sessionId) ?? [{ status: 200 }];
      const answer = (script.length > 1 ? script.shift() : script[0]) as Answer;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body ?? '{"ok":true}');
    });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const start = async (schedule: number[], ...answers: Answer[]) => {
    const sessionId = `suite_${randomUUID()}`;
    scripts.set(sessionId, answers);
    const attempts: DeliveryAttempt[] = [];
    const delivered: number[] = [];
    const engine = await makeEngine({
      url: `${receiver.origin}/hooks/secret-token`,
      ca: receiver.certificate.cert,
      schedule,
      observer: { attempt: (a) => attempts.push(a), delivered: (s) => delivered.push(s) },
    });
    const id = `msg_${randomUUID()}`;
    const payload: SessionEvent = { event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() };
    engine.enqueue({ id, payload });
    const requests = () => receiver.requests.filter((r) => r.body.includes(`"${sessionId}"`));
    const state = async () => (await engine.show(id))?.state;
    return { engine, id, sessionId, payload, requests, state, attempts, delivered };
  };

  describe(`delivery engine: ${name}`, () => {
    it('follows the schedule: each retry waits at least its delay; identical bytes and webhook-id every time', async () => {
      const run = await start([0, 150, 400], { status: 500 }, { status: 500 }, { status: 200 });
      await waitFor(async () => (await run.state()) === 'delivered', { what: 'the delivery', timeoutMs: 15_000 });
      const got = run.requests();
      expect(got).toHaveLength(3);
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([run.id]));
      const gaps = got.slice(1).map((r, i) => r.receivedAt - (got[i]?.receivedAt ?? 0));
      expect(gaps[0]).toBeGreaterThanOrEqual(140);
      expect(gaps[1]).toBeGreaterThanOrEqual(390);
      await run.engine.close();
    });

    it('waits at least the Retry-After of a 503, longer than the schedule says', async () => {
      const run = await start([0, 50, 50], { status: 503, headers: { 'retry-after': '1' } }, { status: 200 });
      await waitFor(async () => (await run.state()) === 'delivered', { what: 'the delivery', timeoutMs: 15_000 });
      const [first, second] = run.requests();
      expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(990);
      await run.engine.close();
    });

    it('410 Gone ends the event at once: one attempt, then the dead-letter list', async () => {
      const run = await start([0, 50, 50, 50], { status: 410, body: 'gone for good' });
      await waitFor(async () => (await run.state()) === 'dead', { what: 'the dead letter', timeoutMs: 15_000 });
      expect(run.requests()).toHaveLength(1);
      const [dead] = (await run.engine.listDead()).filter((d) => d.id === run.id);
      expect(dead).toMatchObject({ id: run.id, payload: run.payload, attempts: 1, target: receiver.origin });
      expect(new Date(dead!.failedAt).toISOString()).toBe(dead!.failedAt);
      await run.engine.close();
    });

    it('a schedule run out puts the event in the dead-letter list; a replay delivers it with the same webhook-id', async () => {
      const run = await start([0, 50], { status: 500 });
      await waitFor(async () => (await run.state()) === 'dead', { what: 'the dead letter', timeoutMs: 15_000 });
      expect(run.requests()).toHaveLength(2);
      expect(await run.engine.stats()).toMatchObject({ dead: 1, pending: 0 });
      scripts.set(run.sessionId, [{ status: 200 }]);
      expect(await run.engine.replay(run.id)).toBe(true);
      await waitFor(async () => (await run.state()) === 'delivered', { what: 'the replayed delivery', timeoutMs: 15_000 });
      expect(new Set(run.requests().map((r) => r.headers['webhook-id']))).toEqual(new Set([run.id]));
      expect((await run.engine.listDead()).some((d) => d.id === run.id)).toBe(false);
      expect(await run.engine.replay('msg_unknown')).toBe(false);
      await run.engine.close();
    });

    it('records every attempt with its event (time, result, status, duration, first 1 kB of the answer) and tells the observer', async () => {
      const long = 'x'.repeat(3000);
      const run = await start([0, 50], { status: 500, body: long }, { status: 200, body: '{"received":true}' });
      await waitFor(async () => (await run.state()) === 'delivered', { what: 'the delivery', timeoutMs: 15_000 });
      const record = await run.engine.show(run.id);
      expect(record).toMatchObject({ id: run.id, event: run.payload, state: 'delivered', target: receiver.origin });
      expect(JSON.stringify(record)).not.toContain('secret-token');
      const [failed, ok] = record!.attempts;
      expect(failed).toMatchObject({ result: 'http_status', status: 500, response: 'x'.repeat(1024) });
      expect(failed).not.toHaveProperty('reason');
      expect(ok).toMatchObject({ result: 'delivered', status: 200, response: '{"received":true}' });
      for (const attempt of record!.attempts) {
        expect(new Date(attempt.at).toISOString()).toBe(attempt.at);
        expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      }
      expect(run.attempts.map((a) => a.result)).toEqual(['http_status', 'delivered']);
      expect(run.delivered).toHaveLength(1);
      expect(run.delivered[0]).toBeGreaterThanOrEqual(0);
      expect((await run.engine.list({ state: 'delivered', limit: 5 })).map((r) => r.id)).toContain(run.id);
      expect(await run.engine.list({ state: 'dead' })).toEqual([]);
      expect(await run.engine.show('msg_unknown')).toBeUndefined();
      await run.engine.close();
    });

    it('a receiver that accepts no connection is recorded as a network failure, with why (host and stage, never the path)', async () => {
      const run = await start([0], { status: 200 });
      await waitFor(async () => (await run.state()) === 'delivered', { what: 'the delivery', timeoutMs: 15_000 });
      await run.engine.close();
      const closed = await startHttpsReceiver();
      await closed.close();
      const engine = await makeEngine({ url: `${closed.origin}/h`, ca: receiver.certificate.cert, schedule: [0], observer: {} });
      const id = `msg_${randomUUID()}`;
      engine.enqueue({ id, payload: { ...run.payload, session: { id: `net_${randomUUID()}` } } });
      await waitFor(async () => (await engine.show(id))?.state === 'dead', { what: 'the dead letter', timeoutMs: 15_000 });
      const attempts = (await engine.show(id))?.attempts ?? [];
      expect(attempts.map((a) => a.result)).toEqual(['network']);
      expect(attempts[0]?.reason).toMatch(/^Could not connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
      // An attempt with an answer keeps its status and body instead (the test above).
      expect(attempts[0]).not.toHaveProperty('status');
      await engine.close();
    });
  });
}
