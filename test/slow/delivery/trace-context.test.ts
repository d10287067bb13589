/**
 * One trace from the resume request to the receiver's handler, across two processes and a
 * retry: the server (this process: createApp over the Redis store and Redis delivery, with
 * OpenTelemetry's SDK exporting to memory) and a receiver process (the receiver kit with its
 * own SDK) that answers 503 to the first attempt. Also: the relay hands over an event its
 * resume never enqueued with the resume's trace context, kept in the Redis outbox.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createApp } from '../../../server/app.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { redisKeys } from '../../../server/redis/redis-keys.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import { createRedisDelivery, type RedisDelivery } from '../../../server/webhooks/redis-delivery.js';
import { listen, type Listening } from '../../helpers/listen.js';
import { startMemoryTracing, type FinishedSpan } from '../../helpers/otel-memory.js';
import { deletePrefix } from '../../helpers/redis-keys.js';
import { waitFor } from '../../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const API_KEY = 'trace-context-test-key-0123456789';
const KIND = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 };
const tracing = startMemoryTracing();
const prefixes: string[] = [];
const deliveries: RedisDelivery[] = [];
let client: Redis;
let connection: Redis;
let receiver: { proc: ChildProcess; port: number; lines: string[] } | undefined;
let server: Listening | undefined;

beforeAll(async () => {
  client = createRedisClient(inject('redisUrl'));
  await waitUntilConnected(client);
  connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  receiver = await startReceiverProcess();
});

afterAll(async () => {
  await server?.close();
  await Promise.all(deliveries.map((delivery) => delivery.close({ timeoutMs: 2000 })));
  receiver?.proc.kill('SIGKILL');
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await client.quit();
  await connection.quit();
  await tracing.shutdown();
});

async function startReceiverProcess() {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/trace-receiver-process.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await waitFor(() => lines.some((line) => line.startsWith('READY ')), { timeoutMs: 20_000, what: 'the receiver process' }).catch((err: Error) => {
    throw new Error(`${err.message}\n${stderr}`);
  });
  const port = Number(lines.find((line) => line.startsWith('READY '))!.split(' ')[1]);
  return { proc, port, lines };
}

function redisDelivery(keyPrefix: string, relayMinAgeMs: number): RedisDelivery {
  const delivery = createRedisDelivery({
    client,
    connection,
    keyPrefix,
    url: `http://127.0.0.1:${receiver!.port}/hook`,
    insecureLocalhost: true,
    schedule: [0, 200, 200],
    relayIntervalMs: 100,
    relayMinAgeMs,
    opentelemetry: tracing.opentelemetry,
    logger: pino({ enabled: false }),
  });
  deliveries.push(delivery);
  return delivery;
}

const receiverSpans = async (): Promise<FinishedSpan[]> => (await (await fetch(`http://127.0.0.1:${receiver!.port}/spans`)).json()) as FinishedSpan[];
const traceparentOf = (span: { traceId: string; spanId: string }) => `00-${span.traceId}-${span.spanId}-01`;

it('one trace: the client span, the resume, each attempt (503, then 200), the receiver kit and the handler', async () => {
  const keyPrefix = `trace-test:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const store = createRedisSessionStore({ client, keyPrefix });
  const sessionId = `traced_${randomUUID()}`;
  await store.seed([{ id: sessionId, status: 'paused' }]);
  const delivery = redisDelivery(keyPrefix, 60_000);
  server = await listen(await createApp({ store, apiKeys: [API_KEY], webhookDelivery: delivery, opentelemetry: tracing.opentelemetry }));

  // The caller's own span, sent as the W3C header.
  const callerSpan = tracing.opentelemetry.trace.getTracer('caller').startSpan('resume call', { kind: KIND.client });
  const caller = callerSpan.spanContext();
  const res = await fetch(`${server.url}/v1/sessions/${sessionId}/resume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, traceparent: traceparentOf(caller), tracestate: 'caller=1' },
  });
  expect(res.status).toBe(200);
  callerSpan.end();

  await waitFor(async () => (await receiverSpans()).some((span) => span.kind === KIND.consumer), { timeoutMs: 20_000, what: "the receiver's handler span" });
  const serverSpans = tracing.finished().filter((span) => span.scope === 'session-resume-api-server');
  const resume = serverSpans.find((span) => span.kind === KIND.server)!;
  const attempts = serverSpans
    .filter((span) => span.kind === KIND.client)
    .sort((a, b) => Number(a.attributes['webhook.attempt']) - Number(b.attributes['webhook.attempt']));
  const fromReceiver = await receiverSpans();
  const handler = fromReceiver.find((span) => span.kind === KIND.consumer)!;
  const work = fromReceiver.find((span) => span.name === 'application work')!;

  // One trace, parent by parent: caller → resume → attempt 1 (503) and attempt 2 (200) → handler → the application's span.
  for (const span of [resume, ...attempts, handler, work]) expect(span.traceId).toBe(caller.traceId);
  expect(resume).toMatchObject({ name: 'POST /v1/sessions/{session_id}/resume', parentSpanId: caller.spanId, status: 0 });
  expect(resume.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/v1/sessions/{session_id}/resume',
    'http.response.status_code': 200,
    'session_resume.outcome': 'resumed',
  });
  expect(attempts).toHaveLength(2);
  expect(attempts[0]).toMatchObject({ name: 'POST', parentSpanId: resume.spanId, status: 2 });
  expect(attempts[0]!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503', 'server.address': '127.0.0.1', 'webhook.attempt': 1 });
  expect(attempts[1]).toMatchObject({ parentSpanId: resume.spanId, status: 0 });
  expect(attempts[1]!.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1, 'webhook.attempt': 2 });
  expect(handler).toMatchObject({ name: 'process session.resumed', parentSpanId: attempts[1]!.spanId, scope: 'session-resume-api/webhooks' });
  expect(work.parentSpanId).toBe(handler.spanId);

  // Each attempt sent its own span as the parent; the handler was given the second one's, with the caller's tracestate.
  const sent = receiver!.lines.filter((line) => line.startsWith('REQUEST ')).map((line) => line.slice('REQUEST '.length));
  expect(sent).toEqual([traceparentOf(attempts[0]!), traceparentOf(attempts[1]!)]);
  const handled = receiver!.lines.find((line) => line.startsWith('HANDLED '))!;
  expect(JSON.parse(handled.slice('HANDLED '.length))).toEqual({ traceparent: traceparentOf(attempts[1]!), tracestate: 'caller=1' });
}, 60_000);

it("the relay hands over an event its resume never enqueued with the resume's trace, kept in the Redis outbox", async () => {
  const keyPrefix = `trace-test:${randomUUID()}:`;
  prefixes.push(keyPrefix);
  const store = createRedisSessionStore({ client, keyPrefix });
  const sessionId = `relayed_${randomUUID()}`;
  await store.seed([{ id: sessionId, status: 'paused' }]);
  const parent = `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`;
  // The resume wrote its event and intent, and its process never enqueued it.
  const transition = await store.resume(sessionId, { trace: { traceparent: parent } });
  expect(transition.kind).toBe('resumed');
  const stored = await client.get(redisKeys(keyPrefix).event(sessionId, transition.kind === 'resumed' ? transition.event.id : ''));
  expect(stored === null ? undefined : (JSON.parse(stored) as { trace?: unknown }).trace).toEqual({ traceparent: parent });

  const before = receiver!.lines.length;
  redisDelivery(keyPrefix, 0);
  await waitFor(() => receiver!.lines.slice(before).some((line) => line.startsWith('HANDLED ')), { timeoutMs: 20_000, what: 'the relayed delivery' });
  const relay = tracing.finished().find((span) => span.kind === KIND.producer && span.traceId === 'ab'.repeat(16))!;
  expect(relay).toMatchObject({ name: 'outbox relay', parentSpanId: 'cd'.repeat(8) });
  const attempt = tracing.finished().find((span) => span.kind === KIND.client && span.traceId === 'ab'.repeat(16))!;
  expect(attempt.parentSpanId).toBe('cd'.repeat(8));
  expect(receiver!.lines.slice(before)).toContain(`REQUEST ${traceparentOf(attempt)}`);
}, 60_000);
