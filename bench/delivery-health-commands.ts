/**
 * What endpoint health costs Redis per successful attempt: the same N events delivered by one
 * Redis delivery engine to a loopback receiver answering 200, with the circuit on and then off,
 * on a private redis-server. Counts every command (INFO commandstats, before and after) and,
 * through MONITOR, the commands on the endpoint-health key.
 *
 *   npx tsx bench/delivery-health-commands.ts [--events 2000]
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { redisKeys } from '../server/redis/redis-keys.js';
import { createRedisDelivery } from '../server/webhooks/redis-delivery.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '2000' } } });
const N = Number(values.events);

async function totalCalls(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Delivers N events with the circuit on or off; returns the commands counted. */
async function run(url: string, redisUrl: string, health: boolean, count: () => number) {
  const client = new Redis(redisUrl);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const monitor = new Redis(redisUrl);
  const keyPrefix = `health-bench:${randomUUID()}:`;
  const key = redisKeys(keyPrefix).endpointHealth;
  let onKey = 0;
  const feed = await monitor.monitor();
  feed.on('monitor', (_time: string, args: string[]) => {
    if (args.includes(key)) onKey++;
  });
  const delivery = createRedisDelivery({
    client,
    connection,
    keyPrefix,
    url,
    allowPrivate: true,
    insecureLocalhost: true,
    relay: false,
    logger: pino({ enabled: false }),
    ...(health ? {} : { endpointHealth: false as const }),
  });
  const start = count();
  const before = await totalCalls(client);
  const began = performance.now();
  for (let i = 0; i < N; i++) {
    const payload: SessionEvent = { event: 'session.resumed', session: { id: `bench_${i}` }, timestamp: new Date().toISOString() };
    delivery.enqueue({ id: `msg_${randomUUID()}`, payload });
  }
  while (count() - start < N) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - began) / 1000;
  const calls = (await totalCalls(client)) - before;
  await delivery.close({ timeoutMs: 5000 });
  feed.disconnect();
  monitor.disconnect();
  client.disconnect();
  connection.disconnect();
  return { calls, onKey, seconds };
}

async function main(): Promise<void> {
  // The private redis-server the other benches use: it resolves once the server answers.
  const redis = await startRedisServer();
  const redisUrl = redis.url;
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(200).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const off = await run(url, redisUrl, false, () => delivered);
    const on = await run(url, redisUrl, true, () => delivered);
    const per = (r: { calls: number }) => (r.calls / N).toFixed(2);
    console.log(`${N} events delivered (200) per run, private redis-server, MONITOR and INFO commandstats`);
    console.log(`| circuit | Redis commands | per delivered event | on the endpoint-health key | seconds |`);
    console.log(`|---|---:|---:|---:|---:|`);
    console.log(`| off | ${off.calls} | ${per(off)} | ${off.onKey} | ${off.seconds.toFixed(2)} |`);
    console.log(`| on | ${on.calls} | ${per(on)} | ${on.onKey} | ${on.seconds.toFixed(2)} |`);
  } finally {
    receiver.close();
    await redis.stop();
  }
}

await main();
