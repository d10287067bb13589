/**
 * `watch --webhook-target` in front of a receiver that is down: the service must see what it
 * would see without `watch`, a connection failure, and never an HTTP answer `watch` made up
 * (a 502 is one of the endpoint circuit's slow-down statuses: three open the circuit).
 */
import { afterAll, expect, it } from 'vitest';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { startWatchProxy, type WatchProxy } from '../../cli/watch/watch-proxy.js';
import type { Exchange } from '../../cli/watch/exchange.js';
import { getFreePort } from '../helpers/free-port.js';

const proxies: WatchProxy[] = [];
afterAll(() => Promise.all(proxies.map((p) => p.close())));

const event = { event: 'session.resumed', session: { id: 'sess_watch_down' }, timestamp: '2026-11-28T01:00:00.000Z' };

it('a receiver that is down: the delivery attempt is a network failure, not a 502 made up by watch', async () => {
  const seen: Exchange[] = [];
  const downPort = await getFreePort();
  const proxy = await startWatchProxy({ target: `http://127.0.0.1:${downPort}`, port: 0, kind: 'webhook', onExchange: (e) => seen.push(e) });
  proxies.push(proxy);
  // The delivery engine's own attempt function: what it returns is what the attempt records.
  const direct = await deliverEvent(`http://127.0.0.1:${downPort}/hooks/tok`, event, { insecureLocalhost: true });
  const through = await deliverEvent(`${proxy.url}/hooks/tok`, event, { insecureLocalhost: true });
  expect(direct).toMatchObject({ delivered: false, reason: 'connection_failed' });
  expect(through).toMatchObject({ delivered: false, reason: 'connection_failed' });
  expect(through.status).toBeUndefined();
  expect(WEBHOOK_DELIVERY_POLICY.endpointHealth.slowDownStatuses).toContain(502);
  // watch still grades the attempt, as one that got no answer.
  expect(seen.map((e) => e.status)).toEqual([undefined]);
});
