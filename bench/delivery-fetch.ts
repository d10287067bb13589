/**
 * The baseline of the delivery group (bench/delivery-cases.ts), in its own process: plain
 * `fetch` (Node's built-in, kept connections) POSTs `events` session events to `url` with
 * `inFlight` requests at once and prints events per second. The receiver's CA comes in through
 * NODE_EXTRA_CA_CERTS, the only way to trust it without an extra dispatcher package.
 *
 *   NODE_EXTRA_CA_CERTS=ca.pem tsx bench/delivery-fetch.ts <url> <events> <inFlight>
 */
const [url = '', events = '3000', inFlight = '50'] = process.argv.slice(2);
const total = Number(events);
const body = (i: number) => JSON.stringify({ event: 'session.resumed', session: { id: `fetch_${i}` }, timestamp: new Date().toISOString() });
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Number(inFlight) }, async () => {
    while (next < total) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(next++) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
    }
  }),
);
process.stdout.write(`${total / ((performance.now() - started) / 1000)}\n`);
