/**
 * The baseline of the delivery group (bench/delivery-cases.ts), in its own process: plain
 * `fetch` (Node's built-in, kept connections) POSTs `events` session events to `url` with
 * `inFlight` requests at once and prints events per second; with `https` as the fourth
 * argument, node:https with a kept-connection Agent instead (a second reference). The
 * receiver's CA comes in through NODE_EXTRA_CA_CERTS, which both honour.
 *
 *   NODE_EXTRA_CA_CERTS=ca.pem tsx bench/delivery-fetch.ts <url> <events> <inFlight> [fetch|https]
 */
import { Agent, request } from 'node:https';

const [url = '', events = '3000', inFlight = '50', client = 'fetch'] = process.argv.slice(2);
const total = Number(events);
const body = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `fetch_${i}` }, timestamp: new Date().toISOString() });
const agent = new Agent({ keepAlive: true, maxSockets: Number(inFlight) });

async function viaFetch(i: number): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
  await res.arrayBuffer();
  return res.status;
}

function viaHttps(i: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body(i));
  });
}

const post = client === 'https' ? viaHttps : viaFetch;
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Number(inFlight) }, async () => {
    while (next < total) {
      const status = await post(next++);
      if (status !== 200) throw new Error(`status ${status}`);
    }
  }),
);
process.stdout.write(`${total / ((performance.now() - started) / 1000)}\n`);
agent.destroy();
