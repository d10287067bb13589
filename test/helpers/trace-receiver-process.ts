/**
 * A receiver process with OpenTelemetry's SDK (in-memory exporter): `node --import tsx
 * trace-receiver-process.ts`. Listens on 127.0.0.1, port 0, with the memory store; answers
 * 503 to the first delivery (the sender retries), then receives normally. Its handler starts a
 * span of its own. Reports on stdout: `READY <port>`, `REQUEST <traceparent>` per delivery,
 * `HANDLED <EventContext.trace as JSON>`; GET /spans answers the finished spans as JSON.
 */
import { createServer } from 'node:http';
import { createMemoryEventStore, createWebhookReceiver } from '../../client/webhooks/index.js';
import { startMemoryTracing } from './otel-memory.js';

const tracing = startMemoryTracing();
const write = (line: string) => process.stdout.write(`${line}\n`);
const tracer = tracing.opentelemetry.trace.getTracer('receiver-application');

const receiver = createWebhookReceiver({
  store: createMemoryEventStore(),
  opentelemetry: tracing.opentelemetry,
  onEvent: async (_event, context) => {
    // The application's own work: a child of the receiver kit's span, found as the active one.
    const span = tracer.startSpan('application work');
    await new Promise((resolve) => setTimeout(resolve, 5));
    span.end();
    write(`HANDLED ${JSON.stringify(context.trace ?? null)}`);
  },
});

let deliveries = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/spans') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tracing.finished()));
    return;
  }
  write(`REQUEST ${String(req.headers.traceparent)}`);
  if (++deliveries === 1) {
    req.resume();
    res.writeHead(503).end();
    return;
  }
  receiver.handler(req, res);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  write(`READY ${typeof address === 'object' && address ? address.port : 0}`);
});

process.once('SIGTERM', () => {
  server.close();
  void receiver.close().then(() => process.exit(0));
});
