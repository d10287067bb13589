/**
 * Memory delivery (the memory store's engine) sends Standard Webhooks headers: one webhook-id per event
 * on every attempt, signed with the secret; with two secrets (a rotation), signed with both.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { pino } from 'pino';
import { createMemoryEventStore, createWebhookReceiver } from '../../../client/webhooks/index.js';
import { createMemoryDelivery } from '../../../server/webhooks/memory-delivery.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('memory-delivery-secret-0123456789').toString('base64')}`;
let receiver: HttpsReceiver | undefined;

afterAll(async () => {
  await receiver?.close();
});

it('retries carry the same webhook-id and each attempt verifies with standardwebhooks', async () => {
  let calls = 0;
  receiver = await startHttpsReceiver((_request, res) => void res.writeHead(++calls < 3 ? 503 : 200).end('{}'));
  const delivery = createMemoryDelivery({
    url: `${receiver.origin}/hook`,
    allowPrivate: true,
    ca: receiver.certificate.cert,
    secret: SECRET,
    schedule: [0, 10, 20],
    logger: pino({ enabled: false }),
  });
  const payload = { event: 'session.resumed', session: { id: 's1' }, timestamp: '2026-11-23T10:00:00.000Z' };
  delivery.enqueue({ id: 'msg_fixed_1', payload });
  await waitFor(() => receiver!.requests.length === 3, { what: 'three attempts' });
  await delivery.close();
  for (const request of receiver.requests) {
    expect(request.headers['webhook-id']).toBe('msg_fixed_1');
    expect(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)).toEqual(payload);
  }
  const wrong = `whsec_${Buffer.from('another-secret-of-enough-length-000').toString('base64')}`;
  const first = receiver.requests[0]!;
  expect(() => new Webhook(wrong).verify(first.body, first.headers as Record<string, string>)).toThrow();
});

it('rotation: signed with two secrets, every delivery passes a receiver holding either one; a third secret is refused', async () => {
  const secretOf = (label: string) => `whsec_${Buffer.from(`rotation-secret-${label}-0123456789ab`).toString('base64')}`;
  const [oldSecret, newSecret, otherSecret] = [secretOf('old'), secretOf('new'), secretOf('oth')];
  const kits = [oldSecret, newSecret, otherSecret].map((secret) => {
    const handled: string[] = [];
    const kit = createWebhookReceiver({ store: createMemoryEventStore(), secret, logger: false, onEvent: (e) => void handled.push(e.session?.id ?? '') });
    return { kit, handled };
  });
  const answers: number[][] = [[], [], []];
  // One HTTPS endpoint hands each delivery to the three receivers, as three deployments would get it.
  const rotating = await startHttpsReceiver((request, res) => {
    void Promise.all(kits.map(({ kit }) => kit.receive(request.body, request.headers))).then((results) => {
      results.forEach((r, i) => answers[i]!.push(r.status));
      res.writeHead(200).end('{}');
    });
  });
  const delivery = createMemoryDelivery({
    url: `${rotating.origin}/hook`,
    allowPrivate: true,
    ca: rotating.certificate.cert,
    secret: [oldSecret, newSecret],
    schedule: [0],
    logger: pino({ enabled: false }),
  });
  try {
    for (const id of ['sess_rot_1', 'sess_rot_2'])
      delivery.enqueue({ id: `msg_${id}`, payload: { event: 'session.resumed', session: { id }, timestamp: '2026-11-25T10:00:00.000Z' } });
    await waitFor(() => rotating.requests.length === 2 && answers[2]!.length === 2, { what: 'two deliveries' });
    // Standard Webhooks: one v1 signature per secret, space-separated.
    expect(rotating.requests[0]!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(answers).toEqual([
      [200, 200],
      [200, 200],
      [401, 401],
    ]);
    await waitFor(() => kits[0]!.handled.length === 2 && kits[1]!.handled.length === 2);
    expect(kits[2]!.handled).toEqual([]);
  } finally {
    await delivery.close();
    await rotating.close();
    for (const { kit } of kits) await kit.close();
  }
});

it.each([
  [
    401,
    SECRET,
    /answered 401 to a signed delivery: it refused the signature\. Check that the receiver holds the signing secret the server signs with \(WEBHOOK_SECRET\)/,
  ],
  [401, undefined, /answered 401 to an unsigned delivery: the receiver checks signatures; give the server its signing secret \(WEBHOOK_SECRET\)/],
  [404, SECRET, /answered 404: .*the receiver's URL token/],
])('the log explains a %i by its cause (secret %s)', async (status, secret, explained) => {
  const answering = await startHttpsReceiver((_request, res) => void res.writeHead(status).end('{}'));
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const delivery = createMemoryDelivery({
    url: `${answering.origin}/hook`,
    allowPrivate: true,
    ca: answering.certificate.cert,
    ...(secret ? { secret } : {}),
    schedule: [0],
    logger,
  });
  delivery.enqueue({ id: `msg_status_${status}`, payload: { event: 'session.resumed', session: { id: 's1' }, timestamp: '2026-11-23T10:00:00.000Z' } });
  await waitFor(() => lines.some((l) => l.includes('dead-letter')), { what: 'the failed delivery logged' });
  await delivery.close();
  await answering.close();
  const failure = JSON.parse(lines.find((l) => l.includes('dead-letter')) ?? '{}') as { detail?: string };
  expect(failure.detail).toMatch(explained);
  expect(failure.detail).not.toContain('only 200 counts');
});
