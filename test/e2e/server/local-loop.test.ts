/**
 * The local webhook loop as a developer runs it: the server (a real process, on the shared
 * Redis under its own key prefix, and in memory) delivers to a plain-HTTP receiver kit on
 * 127.0.0.1 with WEBHOOK_INSECURE_LOCALHOST=1, signed; the start-up log says where webhooks go
 * (origin only), the schedule, signing and who delivers, and where /docs is.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, type ReceivedEvent, type SessionEvent, type WebhookReceiver } from '../../../client/webhooks/index.js';
import { deletePrefix, uniquePrefix } from '../../helpers/redis-keys.js';
import { runServerExpectingExit, startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { waitFor } from '../../helpers/wait-for.js';

const SECRET = `whsec_${Buffer.from('local-loop-e2e-secret-0123456789ab').toString('base64')}`;
const TOKEN = 'tok_local_loop_0123456789abcdef';
const QUERY_SECRET = 'qs3cr3t-in-the-query';
const prefix = uniquePrefix('local-loop');
const received: ReceivedEvent[] = [];
let receiver: WebhookReceiver;
let http: Server;
let hookUrl: string;
let dir: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  receiver = createWebhookReceiver({ store: createMemoryEventStore(), secret: SECRET, urlToken: TOKEN, onEvent: (event) => void received.push(event) });
  http = createServer(receiver.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hooks/${TOKEN}?k=${QUERY_SECRET}`;
  dir = mkdtempSync(join(tmpdir(), 'local-loop-'));
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify(['ll_redis', 'll_memory', 'll_dead'].map((id) => ({ id, status: 'paused' }))));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await receiver.close();
  await deletePrefix(inject('redisUrl'), prefix);
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => ({
  API_KEYS: 'k',
  LOG_LEVEL: 'info',
  SESSIONS_FILE: join(dir, 'sessions.json'),
  WEBHOOK_URL: hookUrl,
  WEBHOOK_INSECURE_LOCALHOST: '1',
  WEBHOOK_SECRET: SECRET,
  ...extra,
});

const resume = (server: ServerProcess, id: string) =>
  fetch(`${server.url}/v1/sessions/${id}/resume`, { method: 'POST', headers: { authorization: 'Bearer k' } });

it('on Redis: a signed delivery to http://127.0.0.1, and start-up lines with the origin only, the schedule, signing, the deliverer and /docs', async () => {
  const server = await startServerProcess(env({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: `${prefix}:`, WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s' }));
  servers.push(server);
  expect((await resume(server, 'll_redis')).status).toBe(200);
  await waitFor(() => received.some((e) => e.session?.id === 'll_redis'), { what: 'the delivery on Redis' });

  const log = server.output();
  const origin = new URL(hookUrl).origin;
  expect(log).toMatch(/"level":40,.*WEBHOOK_INSECURE_LOCALHOST=1: a plain http:\/\/ WEBHOOK_URL on a loopback host is accepted/);
  expect(log).toContain(`"msg":"webhooks to ${origin}, schedule 0s,200ms,1s, signed with 1 secret, delivered by this instance"`);
  expect(log).toContain(`"docs":"${server.url}/docs"`);
  expect(log).not.toContain(TOKEN);
  expect(log).not.toContain(QUERY_SECRET);
  expect((await fetch(`${server.url}/docs`)).status).toBe(200);
}, 60_000);

it('in memory too: delivered to http://127.0.0.1, start-up says the deliveries live in this process', async () => {
  const server = await startServerProcess(env({}));
  servers.push(server);
  expect((await resume(server, 'll_memory')).status).toBe(200);
  await waitFor(() => received.some((e) => e.session?.id === 'll_memory'), { what: 'the delivery in memory' });
  expect(server.output()).toContain('delivered by this instance (in memory: events still pending at exit are lost)');
  expect(server.output()).not.toContain(TOKEN);
}, 60_000);

it('without the flag, http:// on loopback is refused with a message that names it; with it, another host still is', async () => {
  const without = await runServerExpectingExit({ API_KEYS: 'k', WEBHOOK_URL: hookUrl });
  expect(without.code).toBe(1);
  expect(without.output).toContain(
    'Webhook URLs must use HTTPS: "http:" is refused, use https://. For a receiver on a loopback host, set WEBHOOK_INSECURE_LOCALHOST=1',
  );
  expect(without.output).not.toContain(TOKEN);
  const remote = await runServerExpectingExit({
    API_KEYS: 'k',
    WEBHOOK_URL: 'http://10.1.2.3/hooks',
    WEBHOOK_INSECURE_LOCALHOST: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
  });
  expect(remote.code).toBe(1);
  expect(remote.output).toMatch(/WEBHOOK_URL is refused: Webhook URLs must use HTTPS/);
}, 60_000);

/** Runs `session-resume-api-server <args>` (the operator CLI) with `env`. */
const operator = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'server/main.ts', ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });

it('on Redis: a receiver that is down turns the event into a dead letter; `webhooks dead` lists it, `webhooks replay` delivers it once it is back', async () => {
  const loopPrefix = `${prefix}-dead:`;
  const serverEnv = env({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: loopPrefix, WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms' });
  const server = await startServerProcess(serverEnv);
  servers.push(server);
  // The receiver goes away: three refused connections make the event a dead letter.
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  expect((await resume(server, 'll_dead')).status).toBe(200);
  let dead: { id: string; payload: SessionEvent }[] = [];
  await waitFor(
    async () => {
      const listed = await operator(['webhooks', 'dead', '--json'], serverEnv);
      dead = listed.code === 0 ? (JSON.parse(listed.stdout) as { id: string; payload: SessionEvent }[]) : [];
      return dead.some((d) => d.payload.session.id === 'll_dead');
    },
    { timeoutMs: 20_000, intervalMs: 500, what: 'the dead letter' },
  );
  const id = dead.find((d) => d.payload.session.id === 'll_dead')!.id;
  expect(received.some((e) => e.session?.id === 'll_dead')).toBe(false);

  // Back on the same port; the replay keeps the webhook-id and is delivered, signed.
  await new Promise<void>((resolve) => http.listen(Number(new URL(hookUrl).port), '127.0.0.1', resolve));
  const replayed = await operator(['webhooks', 'replay', id], serverEnv);
  expect(replayed.stdout, replayed.stderr).toContain(`replayed ${id}`);
  await waitFor(() => received.some((e) => e.session?.id === 'll_dead'), { what: 'the replayed delivery' });
}, 90_000);
