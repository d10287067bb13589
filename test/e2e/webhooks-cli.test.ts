/**
 * The operator's webhooks commands against a real server process on the shared Redis (own key
 * prefix) delivering to a real HTTPS receiver: show, list, stats and dead with --json, the
 * text forms, a key prefix under which nothing was ever written, and a job holding no event.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { redisKeys } from '../../server/redis/redis-keys.js';
import { DELIVERY_QUEUE_NAME } from '../../server/webhooks/bullmq-queue.js';
import { deletePrefix } from '../helpers/redis-keys.js';
import { runServerCommand } from '../helpers/server-process.js';
import {
  postResume,
  serverEnv,
  startHttpsReceiver,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../helpers/delivery-fixture.js';
import { waitFor } from '../helpers/wait-for.js';

const keyPrefix = `webhooks-cli:${randomUUID()}:`;
let receiver: HttpsReceiver;
let server: ServerProcess;
let env: Record<string, string>;

beforeAll(async () => {
  receiver = await startHttpsReceiver((request, res) => {
    const failing = request.body.includes('"cli_dead"');
    res.writeHead(failing ? 500 : 200, { 'content-type': 'text/plain' }).end(failing ? 'receiver is down' : 'ok');
  });
  const files = writeFixtures(receiver, ['cli_ok', 'cli_dead', 'cli_held']);
  env = { ...serverEnv(inject('redisUrl'), receiver, files, { REDIS_KEY_PREFIX: keyPrefix, WEBHOOK_RETRY_SCHEDULE: '0,100ms' }) };
  server = await startServerProcess(env);
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  await deletePrefix(inject('redisUrl'), keyPrefix);
});

const json = async <T>(args: string[]): Promise<T> => {
  const run = await runServerCommand([...args, '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
};

it('show, list, stats and dead describe every event with its attempts', async () => {
  expect((await postResume(server.url, 'cli_ok')).status).toBe(200);
  expect((await postResume(server.url, 'cli_dead')).status).toBe(200);
  await waitFor(() => receiver.requests.filter((r) => r.body.includes('"cli_dead"')).length === 2, { what: 'both attempts' });
  const okId = String(receiver.requests.find((r) => r.body.includes('"cli_ok"'))?.headers['webhook-id']);
  const deadId = String(receiver.requests.find((r) => r.body.includes('"cli_dead"'))?.headers['webhook-id']);

  await waitFor(async () => (await json<{ dead: number }>(['webhooks', 'stats'])).dead === 1, { what: 'the dead letter', timeoutMs: 30_000 });
  expect(await json(['webhooks', 'stats'])).toEqual({ pending: 0, delivering: 0, delivered: 1, dead: 1 });

  const shown = await json<{ id: string; state: string; target: string; attempts: Record<string, unknown>[] }>(['webhooks', 'show', deadId]);
  expect(shown).toMatchObject({ id: deadId, event: { event: 'session.resumed', session: { id: 'cli_dead' } }, state: 'dead', target: receiver.origin });
  expect(Object.keys(shown).sort()).toEqual(['attempts', 'event', 'id', 'state', 'target']);
  expect(shown.attempts).toHaveLength(2);
  expect(shown.attempts[0]).toMatchObject({ result: 'http_status', status: 500, response: 'receiver is down' });
  expect(Object.keys(shown.attempts[0]!).sort()).toEqual(['at', 'durationMs', 'response', 'result', 'status']);

  const delivered = await json<{ id: string }[]>(['webhooks', 'list', '--state', 'delivered']);
  expect(delivered.map((r) => r.id)).toEqual([okId]);
  expect((await json<{ id: string }[]>(['webhooks', 'list', '--limit', '1'])).length).toBe(1);

  const dead = await json<{ id: string; failedAt: string; target: string }[]>(['webhooks', 'dead']);
  expect(dead.map((d) => [d.id, d.target])).toEqual([[deadId, receiver.origin]]);
  const text = await runServerCommand(['webhooks', 'dead'], env);
  expect(text.stdout).toContain(dead[0]!.failedAt);
  expect(text.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
  expect(text.stdout).toContain(receiver.origin);
  const shownText = await runServerCommand(['webhooks', 'show', deadId], env);
  expect(shownText.stdout).toContain('state    dead');
  expect(JSON.stringify([shown, dead, shownText.stdout])).not.toContain('/hooks/session-events');
}, 90_000);

it('a key prefix under which nothing was ever written is reported as such, with a non-zero exit', async () => {
  const empty = { ...env, REDIS_KEY_PREFIX: `never-used:${randomUUID()}:` };
  for (const args of [
    ['webhooks', 'dead'],
    ['webhooks', 'stats', '--json'],
    ['webhooks', 'list'],
  ]) {
    const run = await runServerCommand(args, empty);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Nothing was ever written under the key prefix');
  }
  // The check itself writes nothing under that prefix.
  expect((await runServerCommand(['webhooks', 'dead'], empty)).code).toBe(1);
  const unknown = await runServerCommand(['webhooks', 'show', 'msg_nope'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No event has the webhook-id msg_nope');
}, 60_000);

it('a job without an event under the prefix (written by something else) is named and skipped: the commands still answer', async () => {
  const connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  const queue = new Queue(DELIVERY_QUEUE_NAME, { connection, prefix: redisKeys(keyPrefix).queuePrefix });
  const id = `foreign_${randomUUID()}`;
  try {
    // Delayed, so no worker takes it: it stays a pending job holding no payload.
    await queue.add('foreign', { note: 'not an event' }, { jobId: id, delay: 3_600_000 });
    for (const args of [
      ['webhooks', 'list'],
      ['webhooks', 'list', '--json'],
      ['webhooks', 'dead'],
      ['webhooks', 'stats'],
    ]) {
      const run = await runServerCommand(args, env);
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(0);
      expect(run.stderr).not.toContain('Cannot read properties');
    }
    const listed = await runServerCommand(['webhooks', 'list'], env);
    expect(listed.stderr).toContain(`skipped job ${id}: no event payload`);
    expect(listed.stdout).not.toContain(id);
    const shown = await runServerCommand(['webhooks', 'show', id], env);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`skipped job ${id}: no event payload`);
  } finally {
    await queue.remove(id).catch(() => undefined);
    await queue.close();
    await connection.quit();
  }
}, 90_000);

it('endpoint shows the shared circuit; a disabled endpoint holds events, and endpoint enable lets them through once', async () => {
  const client = new Redis(inject('redisUrl'));
  try {
    expect(await json(['webhooks', 'endpoint'])).toMatchObject({ state: 'closed' });
    const disabled = { state: 'disabled', streak: 3, slowDowns: 0, probes: 0, failingSince: Date.now() - 60_000, reason: 'gone', changedAt: Date.now() };
    await client.set(redisKeys(keyPrefix).endpointHealth, JSON.stringify(disabled));
    const text = await runServerCommand(['webhooks', 'endpoint'], env);
    expect(text.stdout).toContain('state       disabled (gone)');
    expect(text.stdout).toContain('streak      3 consecutive failed attempt(s)');
    expect(text.stdout).toContain('none until `webhooks endpoint enable`');
    // The JSON gives the times as the text does, in ISO 8601.
    expect(await json(['webhooks', 'endpoint'])).toMatchObject({
      failingSince: new Date(disabled.failingSince).toISOString(),
      changedAt: new Date(disabled.changedAt).toISOString(),
    });
    expect(text.stdout).toContain(`changed     ${new Date(disabled.changedAt).toISOString()}`);
    // The server rereads the shared state every second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const held = () => receiver.requests.filter((r) => r.body.includes('"cli_held"'));
    expect((await postResume(server.url, 'cli_held')).status).toBe(200);
    await waitFor(async () => (await json<{ pending: number }>(['webhooks', 'stats'])).pending === 1, { what: 'the held event' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(held()).toHaveLength(0);
    expect(await json(['webhooks', 'endpoint'])).toMatchObject({ state: 'disabled', held: 1 });
    const enabled = await runServerCommand(['webhooks', 'endpoint', 'enable'], env);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('endpoint enabled (was disabled)');
    expect(await json(['webhooks', 'endpoint'])).toMatchObject({ state: 'closed', streak: 0 });
    await waitFor(() => held().length === 1, { what: 'the held event delivered', timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(held()).toHaveLength(1);
  } finally {
    await client.quit();
  }
}, 60_000);

it('WEBHOOK_MAX_HELD_EVENTS bounds the held backlog of the command; an event past it shows a held_overflow entry and no attempt', async () => {
  const prefix = `webhooks-cli-held:${randomUUID()}:`;
  const files = writeFixtures(receiver, ['cli_held_1', 'cli_held_2']);
  const heldEnv = { ...serverEnv(inject('redisUrl'), receiver, files, { REDIS_KEY_PREFIX: prefix, WEBHOOK_MAX_HELD_EVENTS: '1' }) };
  const client = new Redis(inject('redisUrl'));
  // Disabled before the server starts: its first read of the shared state holds every event.
  await client.set(
    redisKeys(prefix).endpointHealth,
    JSON.stringify({ state: 'disabled', streak: 1, slowDowns: 0, probes: 0, reason: 'gone', changedAt: Date.now() }),
  );
  const held = await startServerProcess(heldEnv);
  try {
    expect((await postResume(held.url, 'cli_held_1')).status).toBe(200);
    await waitFor(async () => (await runServerCommand(['webhooks', 'endpoint', '--json'], heldEnv)).stdout.includes('"held":1'), {
      what: 'the first event held',
    });
    expect((await postResume(held.url, 'cli_held_2')).status).toBe(200);
    const run = (args: string[]) => runServerCommand(args, heldEnv);
    await waitFor(async () => JSON.parse((await run(['webhooks', 'stats', '--json'])).stdout).dead === 1, {
      what: 'the event past the bound',
      timeoutMs: 20_000,
    });
    const [dead] = JSON.parse((await run(['webhooks', 'dead', '--json'])).stdout) as { id: string; attempts: number; reason: string }[];
    expect(dead).toMatchObject({ attempts: 0, reason: expect.stringMatching(/^held_overflow: .*\(1 events, maxHeldEvents\)/) });
    const shown = JSON.parse((await run(['webhooks', 'show', dead!.id, '--json'])).stdout) as { attempts: { result: string }[] };
    expect(shown.attempts.map((a) => a.result)).toEqual(['held_overflow']);
    const text = (await run(['webhooks', 'show', dead!.id])).stdout;
    expect(text).toContain('attempts 0');
    expect(text).toMatch(/^ {2}- {2}\S+ {2}held_overflow {2}held_overflow: /m);
    expect((await run(['webhooks', 'dead'])).stdout).toContain(' 0 attempt(s)  held_overflow: ');
  } finally {
    await held.stop('SIGKILL');
    await client.quit();
    await deletePrefix(inject('redisUrl'), prefix);
  }
}, 90_000);
