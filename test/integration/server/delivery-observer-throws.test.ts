/** An observer that throws never breaks a delivery, and is never ignored in silence: it is logged. */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryDelivery } from '../../../server/webhooks/memory-delivery.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/tls.js';
import { waitFor } from '../../helpers/wait-for.js';

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startHttpsReceiver((_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
afterAll(() => receiver.close());

describe('delivery observer that throws', () => {
  it('is logged at error level, and the event is still delivered', async () => {
    const lines: { level: number; msg: string; err?: { message: string } }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const thrown = () => {
      throw new Error('observer bug');
    };
    const delivery = createMemoryDelivery({
      url: `${receiver.origin}/hooks`,
      ca: receiver.certificate.cert,
      allowPrivate: true,
      logger,
      observer: { attempt: thrown, delivered: thrown },
    });
    delivery.enqueue({
      id: `msg_${randomUUID()}`,
      payload: { event: 'session.resumed', session: { id: 'sess_observer' }, timestamp: new Date().toISOString() },
    });
    await waitFor(() => lines.some((l) => l.msg === 'webhook delivered'));
    await delivery.close();
    const observerLines = lines.filter((l) => l.msg === 'webhook delivery observer threw; the delivery goes on');
    expect(observerLines).toHaveLength(2);
    expect(observerLines.every((l) => l.level === 50 && l.err?.message === 'observer bug')).toBe(true);
  });
});
