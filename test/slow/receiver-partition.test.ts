/**
 * A silent partition between one receiver instance and Redis. Three receiver processes share a
 * private redis-server; one reaches it through a pausable TCP proxy. While events arrive at 25
 * a second, the proxy stops forwarding for 12 s (across several dedupe-window buckets: the
 * window is 12 s, its buckets 1 s), keeping the sockets open, then forwards what it buffered.
 * The sender tries each event on one instance and, on anything but a 200, on the next one, as
 * a careful webhook sender does. Every acknowledged event's handler must run exactly once, and
 * no event's twice: the cut instance's recordings that reach Redis after their answer's
 * deadline (a 503) must change nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import type { SessionEvent } from '../../client/webhooks/index.js';
import { startPausableProxy, type PausableProxy } from '../helpers/pausable-proxy.js';
import { countBy, doneIds, startReceiverProcess, type ReceiverProcess } from '../helpers/receiver-processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const RATE_PER_SECOND = 25;
const BEFORE_MS = 1500;
const CUT_MS = 12_000;
const AFTER_MS = 1500;

let redis: RedisServer | undefined;
let proxy: PausableProxy | undefined;
const receivers: ReceiverProcess[] = [];
afterAll(async () => {
  proxy?.resume();
  await Promise.all(receivers.map((r) => r.kill('SIGKILL')));
  await proxy?.close();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Posts `event` to `url`; the status, or 0 when no answer came within 5 s. */
async function post(url: string, event: SessionEvent, webhookId: string): Promise<number> {
  try {
    const res = await fetch(`${url}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': webhookId },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** The sender: instance `first`, then the next on anything but a 200; true once acknowledged. */
async function send(event: SessionEvent, first: number, answers: number[]): Promise<boolean> {
  const webhookId = `msg_${randomUUID()}`;
  for (let i = 0; i < 2 * receivers.length; i++) {
    const status = await post(receivers[(first + i) % receivers.length]!.url, event, webhookId);
    answers.push(status);
    if (status === 200) return true;
  }
  return false;
}

it('a receiver instance cut from Redis for 12 s: every acknowledged event runs once, none twice', { timeout: 90_000 }, async () => {
  redis = await startRedisServer();
  proxy = await startPausableProxy({ host: '127.0.0.1', port: redis.port });
  // The default 30 s lock: the cut instance keeps the jobs it holds (see receiver-redis.md).
  const config = { prefix: 'partition', dedupeWindowSeconds: 12, recordTimeoutMs: 1000, stalledIntervalMs: 1000 };
  receivers.push(
    ...(await Promise.all([
      startReceiverProcess({ ...config, redisUrl: `redis://127.0.0.1:${proxy.port}` }),
      startReceiverProcess({ ...config, redisUrl: redis.url }),
      startReceiverProcess({ ...config, redisUrl: redis.url }),
    ])),
  );

  const acknowledged: string[] = [];
  const answers: number[] = [];
  const sends: Array<Promise<void>> = [];
  const total = Math.round(((BEFORE_MS + CUT_MS + AFTER_MS) / 1000) * RATE_PER_SECOND);
  const started = Date.now();
  let cut = false;
  let healed = false;
  for (let n = 0; n < total; n++) {
    const at = started + (n * 1000) / RATE_PER_SECOND;
    await sleep(Math.max(0, at - Date.now()));
    if (!cut && Date.now() - started >= BEFORE_MS) {
      proxy.pause();
      cut = true;
    }
    if (!healed && Date.now() - started >= BEFORE_MS + CUT_MS) {
      proxy.resume();
      healed = true;
    }
    const id = `sess_p${n}`;
    const event: SessionEvent = { event: 'session.resumed', session: { id }, timestamp: new Date().toISOString() };
    sends.push(send(event, n % receivers.length, answers).then((ok) => void (ok && acknowledged.push(id))));
  }
  if (!healed) proxy.resume();
  await Promise.all(sends);
  const unavailable = answers.filter((s) => s === 503).length;
  console.info(
    `receiver-partition: ${total} events, ${acknowledged.length} acknowledged, ${unavailable} answers 503, ${answers.filter((s) => s === 0).length} without an answer`,
  );
  expect(unavailable).toBeGreaterThan(0);

  // Every acknowledged event runs; then the cut instance's late recordings have had several
  // sweeps (1 s each) to show up as second runs.
  await waitFor(() => acknowledged.every((id) => doneIds(receivers).includes(id)), { timeoutMs: 30_000, what: 'every acknowledged event handled' });
  await sleep(5000);
  const counts = countBy(doneIds(receivers));
  const twice = [...counts].filter(([, c]) => c > 1).map(([id]) => id);
  console.info(`receiver-partition: ${counts.size} events handled, ${twice.length} twice`);
  expect(twice).toEqual([]);
  expect(acknowledged.filter((id) => counts.get(id) !== 1)).toEqual([]);
});
