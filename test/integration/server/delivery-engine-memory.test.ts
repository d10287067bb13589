/** The shared delivery suite on the in-process queue (memory store). */
import { pino } from 'pino';
import { createMemoryDelivery } from '../../../server/webhooks/memory-delivery.js';
import { deliveryEngineSuite } from '../../helpers/delivery-engine-suite.js';

deliveryEngineSuite('in-process queue', async ({ url, ca, schedule, observer }) =>
  createMemoryDelivery({ url, ca, schedule, observer, allowPrivate: true, logger: pino({ enabled: false }) }),
);
