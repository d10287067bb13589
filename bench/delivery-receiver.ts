/**
 * The receiver of the delivery benches (bench/delivery-rate.ts, bench/delivery-cases.ts), in its
 * own process: HTTPS on 127.0.0.1 with the certificate in DELIVERY_BENCH_CERT /
 * DELIVERY_BENCH_KEY, answering 200 to every POST and printing its port once listening.
 * `GET /stats` answers how many events arrived and, for events whose session id starts with
 * `fresh_`, how long after their timestamp they arrived (ms); `GET /stats?reset=1` also clears.
 * `GET /stats?reset=1&from=N` also marks the N-th event to come: the answers then carry
 * `fromAt` (when it arrived) and `lastAt` (when the latest one did), in ms of this process's
 * clock, so that a rate is timed where the events arrive rather than by the polling.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

let received = 0;
let fresh: number[] = [];
let from = 0;
let fromAt: number | undefined;
let lastAt: number | undefined;

function reset(url: URL): void {
  [received, fresh, fromAt, lastAt] = [0, [], undefined, undefined];
  from = Number(url.searchParams.get('from') ?? 0);
}

const server = createServer({ cert: process.env.DELIVERY_BENCH_CERT, key: process.env.DELIVERY_BENCH_KEY }, (req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received, fresh, fromAt, lastAt }));
    const url = new URL(req.url ?? '/', 'https://receiver');
    if (url.searchParams.get('reset') === '1') reset(url);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received++;
    lastAt = performance.now();
    if (received === from) fromAt = lastAt;
    const text = Buffer.concat(chunks).toString();
    if (text.includes('"fresh_')) {
      const { timestamp } = JSON.parse(text) as { timestamp: string };
      fresh.push(Date.now() - Date.parse(timestamp));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => process.exit(0));
