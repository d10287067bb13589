/** The in-process sender (memory store) sends Standard Webhooks headers: one webhook-id per event on every attempt, signed with the secret. */
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { pino } from 'pino';
import { createWebhookSender } from '../../../server/webhooks/create-webhook-sender.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('in-process-sender-secret-0123456789').toString('base64')}`;
let receiver: HttpsReceiver | undefined;

afterAll(async () => {
  await receiver?.close();
});

it('retries carry the same webhook-id and each attempt verifies with standardwebhooks', async () => {
  let calls = 0;
  receiver = await startHttpsReceiver((_request, res) => void res.writeHead(++calls < 3 ? 503 : 200).end('{}'));
  const sender = createWebhookSender({
    url: `${receiver.origin}/hook`,
    allowPrivate: true,
    ca: receiver.certificate.cert,
    secret: SECRET,
    schedule: [0, 10, 20],
    logger: pino({ enabled: false }),
  });
  const payload = { event: 'session.resumed', session: { id: 's1' }, timestamp: '2026-11-23T10:00:00.000Z' };
  sender.enqueue({ id: 'msg_fixed_1', payload });
  await waitFor(() => receiver!.requests.length === 3, { what: 'three attempts' });
  await sender.close();
  for (const request of receiver.requests) {
    expect(request.headers['webhook-id']).toBe('msg_fixed_1');
    expect(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)).toEqual(payload);
  }
  const wrong = `whsec_${Buffer.from('another-secret-of-enough-length-000').toString('base64')}`;
  const first = receiver.requests[0]!;
  expect(() => new Webhook(wrong).verify(first.body, first.headers as Record<string, string>)).toThrow();
});
