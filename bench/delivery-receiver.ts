/**
 * The receiver of bench/delivery-rate.ts, in its own process: HTTPS on 127.0.0.1 with the
 * certificate in DELIVERY_BENCH_CERT / DELIVERY_BENCH_KEY, answering 200 to every POST and
 * printing its port once listening.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const server = createServer({ cert: process.env.DELIVERY_BENCH_CERT, key: process.env.DELIVERY_BENCH_KEY }, (req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => process.exit(0));
