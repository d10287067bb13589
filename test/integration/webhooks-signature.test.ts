/**
 * The receiver with a Standard Webhooks secret, over real HTTP, on both stores: 401 and no
 * handler call for a tampered body, a wrong secret, a stale timestamp or no signature;
 * deliveries signed by `standardwebhooks`' own `sign` pass, also with two secrets
 * (rotation); dedupe on `webhook-id` as well as on (event, session.id, timestamp); the
 * probe is acknowledged without a handler call.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import {
  createMemoryEventStore,
  createProbeEvent,
  createWebhookReceiver,
  type ReceiverStore,
  type ReceivedEvent,
  type SessionEvent,
} from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { listen } from '../helpers/listen.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const prefixes: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const p of prefixes) await deletePrefix(redisUrl, p);
});

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
let n = 0;
const anEvent = (): SessionEvent => ({ event: 'session.resumed', session: { id: `sess_sig_${++n}_${Date.now()}` }, timestamp: new Date().toISOString() });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sign(secret: string, payload: string, at = new Date(), id = `msg_${randomBytes(8).toString('hex')}`): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, payload) };
}

const stores: Array<[string, () => ReceiverStore]> = [
  ['memory', () => createMemoryEventStore()],
  [
    'redis',
    () => {
      const prefix = uniquePrefix('recv-sig');
      prefixes.push(prefix);
      return createRedisEventStore({ url: redisUrl, prefix });
    },
  ],
];

describe.each(stores)('signed deliveries with the %s store', (_name, makeStore) => {
  async function start(secret: string | string[]) {
    const seen: ReceivedEvent[] = [];
    const receiver = createWebhookReceiver({ store: makeStore(), secret, onEvent: (e) => void seen.push(e) });
    const server = await listen(receiver.handler);
    closers.push(async () => (await server.close(), await receiver.close()));
    const post = async (payload: string, headers: Record<string, string>) => {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
      const body = (await res.json()) as Record<string, unknown>;
      expect(contract.validate(res.status === 200 ? 'WebhookAck' : 'Error', body).ok).toBe(true);
      return { status: res.status, body };
    };
    return { seen, post };
  }

  it('refuses a tampered body, a wrong secret, a stale timestamp and no signature with 401; calls no handler', async () => {
    const secret = newSecret();
    const { seen, post } = await start(secret);
    const payload = JSON.stringify(anEvent());
    const tampered = await post(payload.replace('session.resumed', 'session.paused'), sign(secret, payload));
    expect(tampered).toMatchObject({ status: 401, body: { success: false, error: 'unauthorized' } });
    expect((await post(payload, sign(newSecret(), payload))).status).toBe(401);
    const stale = await post(payload, sign(secret, payload, new Date(Date.now() - 6 * 60_000)));
    expect(stale).toMatchObject({ status: 401, body: { message: expect.stringMatching(/5 minutes/) } });
    expect((await post(payload, {})).status).toBe(401);
    // The refused payload was not recorded: the same event, signed, is a first delivery.
    expect(await post(payload, sign(secret, payload))).toMatchObject({ status: 200, body: { duplicate: false } });
    await waitFor(() => seen.length === 1);
    await sleep(100);
    expect(seen).toHaveLength(1);
  });

  it('accepts deliveries signed with either of two secrets (rotation)', async () => {
    const [current, previous] = [newSecret(), newSecret()];
    const { seen, post } = await start([current, previous]);
    const a = JSON.stringify(anEvent());
    const b = JSON.stringify(anEvent());
    expect((await post(a, sign(current, a))).status).toBe(200);
    expect((await post(b, sign(previous, b))).status).toBe(200);
    await waitFor(() => seen.length === 2);
  });

  it('dedupes on webhook-id as well as on (event, session.id, timestamp)', async () => {
    const secret = newSecret();
    const { seen, post } = await start(secret);
    const event = anEvent();
    const payload = JSON.stringify(event);
    const first = sign(secret, payload);
    expect((await post(payload, first)).body).toMatchObject({ duplicate: false });
    // Same webhook-id, another payload (a sender that rebuilt the body on retry): a duplicate.
    const rebuilt = JSON.stringify({ ...event, timestamp: new Date(Date.now() + 1000).toISOString() });
    expect((await post(rebuilt, sign(secret, rebuilt, new Date(), first['webhook-id']))).body).toMatchObject({ duplicate: true });
    // Same triple, a new webhook-id: still a duplicate.
    expect((await post(payload, sign(secret, payload))).body).toMatchObject({ duplicate: true });
    // A new triple and a new id: a new event.
    const other = JSON.stringify(anEvent());
    expect((await post(other, sign(secret, other))).body).toMatchObject({ duplicate: false });
    await waitFor(() => seen.length === 2);
    await sleep(150);
    expect(seen.map((e) => e.session?.id)).toEqual([event.session.id, JSON.parse(other).session.id]);
  });

  it('acknowledges the probe (signed) without recording it or calling the handler', async () => {
    const secret = newSecret();
    const { seen, post } = await start(secret);
    const probe = JSON.stringify(createProbeEvent());
    expect((await post(probe, {})).status).toBe(401);
    expect(await post(probe, sign(secret, probe))).toEqual({ status: 200, body: { received: true, duplicate: false, probe: true } });
    expect(await post(probe, sign(secret, probe))).toEqual({ status: 200, body: { received: true, duplicate: false, probe: true } });
    await sleep(150);
    expect(seen).toEqual([]);
  });
});
