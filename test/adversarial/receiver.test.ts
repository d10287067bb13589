/**
 * Hostile payloads against the receiver kit (fast-check): random JSON, session events with
 * missing fields and wrong types, in the nested and the flat form, deep nesting, strings up to the 1 MiB limit, `__proto__`
 * and `constructor` keys, junk bytes, and random headers (also with a secret). Properties:
 * never a 5xx, every receivable object accepted, never a handler call for one that is not (nor for a
 * refused signature or the probe), every answer in the spec's shapes, Object.prototype
 * untouched. Prints its counts. Memory store: the core and the node adapter over real HTTP.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import {
  createMemoryEventStore,
  createProbeEvent,
  createWebhookReceiver,
  type EventContext,
  type ReceiveResult,
  type ReceivedEvent,
} from '../../client/webhooks/index.js';
import { listen } from '../helpers/listen.js';
import { waitFor } from '../helpers/wait-for.js';

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;
/**
 * What the receiver must accept (x-decisions: event-payload-forms), written out here on its
 * own: a JSON object with an event name (event, else status) or a session id (session.id,
 * else session_id). The handler gets such an object with `event` or `session.id` filled in.
 */
const isReceivable = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const e = v as { event?: unknown; status?: unknown; session?: { id?: unknown } | null; session_id?: unknown };
  const nestedId = typeof e.session === 'object' && e.session !== null ? e.session.id : undefined;
  return nonEmpty(e.event) || nonEmpty(e.status) || nonEmpty(nestedId) || nonEmpty(e.session_id);
};
/** The handler can always tell the event or the session: from the event, else from its context. */
const isNamed = (e: ReceivedEvent, ctx: EventContext) =>
  nonEmpty(e.event) || (typeof e.session === 'object' && e.session !== null && nonEmpty(e.session.id)) || nonEmpty(ctx.eventName) || nonEmpty(ctx.sessionId);

const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf');
const anyJson = fc.jsonValue({ maxDepth: 4 });
const field = fc.oneof(fc.string({ maxLength: 40 }), anyJson, fc.constant(undefined));
/** Session events with each field present, missing, of another type, or hostile. */
const mutatedEvent = fc
  .record({
    event: fc.oneof(fc.constantFrom('session.resumed', 'session.paused', 'webhook.probe', ''), field),
    session: fc.oneof(fc.record({ id: fc.oneof(fc.string({ maxLength: 30 }), field) }, { requiredKeys: [] }), field, fc.dictionary(hostileKey, anyJson)),
    timestamp: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      field,
    ),
    // The flat form of the vendor's SDK.
    status: fc.oneof(fc.constantFrom('completed', 'running', ''), field),
    session_id: fc.oneof(fc.string({ maxLength: 30 }), field),
    extra: fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 8 })), anyJson, { maxKeys: 4 }),
  })
  .map(({ extra, ...rest }) => JSON.stringify({ ...extra, ...rest }));
/** `__proto__` as a JSON key (JSON.stringify never writes one: this is hand-built text). */
const protoText = fc.tuple(fc.constantFrom('__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 }), fc.boolean()).map(([key, value, inSession]) => {
  const hostile = `"${key}": ${JSON.stringify(value === undefined ? null : value)}, "polluted": true`;
  const id = `"id": "sess_${randomBytes(4).toString('hex')}"`;
  return inSession
    ? `{"event": "session.resumed", "session": {${hostile}, ${id}}, "timestamp": "t", "${key}": {"polluted": true}}`
    : `{"${key}": {"polluted": true, "isAdmin": true}, "event": "session.paused", "session": {${id}}, "timestamp": "t"}`;
});
/** Deep nesting at the top, in an extra field and inside session. */
const deep = fc.tuple(fc.integer({ min: 1_000, max: 50_000 }), fc.constantFrom('top', 'extra', 'session')).map(([depth, where]) => {
  const nest = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const deepObject = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  if (where === 'top') return nest;
  if (where === 'extra') return `{"event":"e","session":{"id":"s${depth}"},"timestamp":"t","x":${nest},"y":${deepObject}}`;
  return `{"event":"e","session":{"id":"s${depth}","x":${deepObject}},"timestamp":"t"}`;
});
/** Strings around the 1 MiB limit, in a valid event or alone. */
const huge = fc
  .tuple(fc.integer({ min: 1024 * 1024 - 200, max: 1024 * 1024 + 200 }), fc.boolean())
  .map(([size, wrapped]) =>
    wrapped ? JSON.stringify({ event: 'session.resumed', session: { id: `big${size}` }, timestamp: 't', pad: 'x'.repeat(size - 90) }) : `"${'y'.repeat(size)}"`,
  );
const junkBytes = fc.uint8Array({ maxLength: 300 });
const payload = fc.oneof(
  { arbitrary: mutatedEvent, weight: 10 },
  { arbitrary: anyJson.map((v) => JSON.stringify(v) ?? 'null'), weight: 3 },
  { arbitrary: fc.string({ maxLength: 200 }), weight: 2 },
  { arbitrary: protoText, weight: 3 },
  { arbitrary: deep, weight: 1 },
  { arbitrary: huge, weight: 1 },
  { arbitrary: junkBytes, weight: 2 },
);

function tally() {
  return { tried: 0, byStatus: new Map<number, number>(), fiveXx: 0, offSpec: 0, handlerCalls: 0, handledInvalid: 0, accepted: 0 };
}
type Tally = ReturnType<typeof tally>;
const count = (t: Tally, r: ReceiveResult) => {
  t.tried++;
  t.byStatus.set(r.status, (t.byStatus.get(r.status) ?? 0) + 1);
  if (r.status >= 500) t.fiveXx++;
  if (!contract.validate(r.status === 200 ? 'WebhookAck' : 'Error', r.body).ok) t.offSpec++;
  if (r.status === 200 && !('probe' in r.body) && !r.body.duplicate) t.accepted++;
};
const report = (label: string, t: Tally) =>
  console.log(
    `adversarial receiver (${label}): ${t.tried} payloads, statuses ${JSON.stringify(Object.fromEntries(t.byStatus))}, ` +
      `5xx ${t.fiveXx}, off-spec answers ${t.offSpec}, handler calls ${t.handlerCalls} (for invalid payloads: ${t.handledInvalid})`,
  );

function receiverWith(t: Tally, secret?: string) {
  const receiver = createWebhookReceiver({
    store: createMemoryEventStore({ concurrency: 4 }),
    secret,
    onEvent: (event, ctx) => {
      t.handlerCalls++;
      if (!isNamed(event, ctx) || !isReceivable(event) || event.event === 'webhook.probe') t.handledInvalid++;
    },
  });
  closers.push(() => receiver.close());
  return receiver;
}

describe('adversarial receiver kit', () => {
  it('2,000 hostile payloads to the core: no 5xx, no handler call for an invalid one, prototypes untouched', { timeout: 240_000 }, async () => {
    const t = tally();
    const receiver = receiverWith(t);
    await fc.assert(
      fc.asyncProperty(payload, async (body) => {
        const answer = await receiver.receive(body);
        count(t, answer);
        expect(answer.status).toBeLessThan(500);
        const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (!isReceivable(parsed)) expect(answer.status).not.toBe(200);
        else if (answer.status !== 413) expect(answer.status).toBe(200);
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 2_000 },
    );
    await waitFor(() => t.handlerCalls === t.accepted, { timeoutMs: 30_000, what: 'every accepted event handled' });
    report('core', t);
    expect(t.fiveXx).toBe(0);
    expect(t.offSpec).toBe(0);
    expect(t.handledInvalid).toBe(0);
    expect(t.handlerCalls).toBe(t.accepted);
    expect(t.accepted).toBeGreaterThan(0);
  });

  it(
    '300 hostile requests over HTTP to a receiver with a secret: 401 for every unsigned or wrongly signed one, never a 5xx',
    { timeout: 120_000 },
    async () => {
      const t = tally();
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const receiver = receiverWith(t, secret);
      const server = await listen(receiver.handler);
      closers.push(() => server.close());
      const signer = new Webhook(secret);
      const headerValue = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('v1,', 'v1,AAAA', ' ', '0', '-1', '99999999999', 'v2,x v1,y'));
      const request = fc.record({
        body: fc.oneof(mutatedEvent, protoText, fc.constant(JSON.stringify(createProbeEvent()))),
        sign: fc.constantFrom('none', 'good', 'wrong-secret', 'tampered', 'stale', 'garbage'),
        contentType: fc.constantFrom('application/json', 'text/plain', '', 'application/json; charset=latin1', ';;;==='),
        garbage: fc.record({ 'webhook-id': headerValue, 'webhook-timestamp': headerValue, 'webhook-signature': headerValue }),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ body, sign, contentType, garbage }) => {
          const id = `msg_${randomBytes(6).toString('hex')}`;
          const at = sign === 'stale' ? new Date(Date.now() - 10 * 60_000) : new Date();
          const signWith = sign === 'wrong-secret' ? new Webhook(`whsec_${randomBytes(32).toString('base64')}`) : signer;
          const signed = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signWith.sign(id, at, body) };
          const headers: Record<string, string> = sign === 'none' ? {} : sign === 'garbage' ? garbage : signed;
          const sent = sign === 'tampered' ? `${body} ` : body;
          const res = await fetch(server.url, { method: 'POST', headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers }, body: sent });
          const answer = { status: res.status, body: await res.json() } as ReceiveResult;
          count(t, answer);
          expect(res.status).toBeLessThan(500);
          if (sign !== 'good') expect(res.status).toBe(401);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: 300 },
      );
      await waitFor(() => t.handlerCalls === t.accepted, { timeoutMs: 30_000, what: 'every accepted event handled' });
      report('HTTP, with a secret', t);
      expect(t.fiveXx).toBe(0);
      expect(t.offSpec).toBe(0);
      expect(t.handledInvalid).toBe(0);
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    },
  );
});
