/**
 * Kept connections (runtime/delivery/delivery-agents.ts) against a real HTTPS receiver: reused
 * between deliveries to the same checked address, never before the address check, never
 * across addresses, and a delivery still verifies the certificate it was given.
 */
import type { Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createDeliveryAgents } from '@session-resume-api/runtime/delivery/delivery-agents';
import { deliverEvent } from '@session-resume-api/runtime/delivery/deliver-event';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { getTestCertificate, startHttpsReceiver, type HttpsReceiver } from '../helpers/tls.js';

const event: SessionEvent = { event: 'session.resumed', session: { id: 'sess_keep' }, timestamp: '2026-11-24T03:00:00.000Z' };
const ca = getTestCertificate().cert;
const open: HttpsReceiver[] = [];
const sockets = new Set<Socket>();
const agents = createDeliveryAgents();

afterEach(async () => {
  agents.destroy();
  sockets.clear();
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const receiver = async () => {
  const r = await startHttpsReceiver((_request, res, req) => {
    sockets.add(req.socket);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
  open.push(r);
  return r;
};

it('five deliveries to one receiver share one connection with agents, and open five without', async () => {
  const r = await receiver();
  for (let i = 0; i < 5; i++) {
    expect(await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca, agents })).toMatchObject({ delivered: true });
  }
  expect(sockets.size).toBe(1);
  sockets.clear();
  for (let i = 0; i < 5; i++) await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca });
  expect(sockets.size).toBe(5);
});

it('a kept connection never skips the address check: a private address is refused without allowPrivate', async () => {
  const r = await receiver();
  const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
  const url = `https://hooks.test:${r.port}/h`;
  const first = await deliverEvent(url, event, { allowPrivate: true, agents, lookup, insecureLocalhost: true });
  expect(first).toMatchObject({ delivered: true });
  const second = await deliverEvent(url, event, { agents, lookup });
  expect(second).toMatchObject({ delivered: false, reason: 'blocked_address' });
  expect(r.requests).toHaveLength(1);
});

it('keeps one agent per checked address and protocol', () => {
  expect(agents.agentFor(false, '127.0.0.1')).toBe(agents.agentFor(false, '127.0.0.1'));
  expect(agents.agentFor(false, '127.0.0.1')).not.toBe(agents.agentFor(false, '127.0.0.2'));
  expect(agents.agentFor(true, '127.0.0.1')).not.toBe(agents.agentFor(false, '127.0.0.1'));
});

it('a kept connection opened with one CA is not reused by a delivery that trusts another', async () => {
  const r = await receiver();
  expect(await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, ca, agents })).toMatchObject({ delivered: true });
  const other = await deliverEvent(`${r.origin}/h`, event, { allowPrivate: true, agents });
  expect(other).toMatchObject({ delivered: false, reason: 'tls_failed' });
});
