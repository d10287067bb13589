/**
 * Redis settings that cannot point at the wrong place, as an operator meets them, against a
 * private redis-server with a password: a refused login stops the server and every command at
 * once, saying so (not a connection timeout); the start-up line names the Redis in use (host,
 * port, db, prefix; never the password); a stop says `shutting down` first and `stopped`
 * last, and with Redis gone says so once instead of a line per reconnection attempt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerCommand, runServerExpectingExit, startServerProcess } from '../../helpers/server-process.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';

const PASSWORD = `pw-${randomUUID()}`;
let redis: RedisServer;
let host: string;

beforeAll(async () => {
  redis = await startRedisServer({ requirepass: PASSWORD });
  host = `127.0.0.1:${redis.port}`;
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

/** The messages of the JSON log lines in `output`, in order. */
const messages = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

describe('a refused login', () => {
  it('stops the server at once with what to fix: WRONGPASS for a wrong password, NOAUTH without one; never the password', async () => {
    const wrong = await runServerExpectingExit({ REDIS_URL: `redis://:not-${PASSWORD}@${host}` });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain(`session-resume-api cannot start: Redis at ${host} refused to authenticate (WRONGPASS)`);
    expect(wrong.output).toContain('REDIS_URL');
    expect(wrong.output).not.toContain(`not-${PASSWORD}`);
    // Not the connection timeout it used to end with.
    expect(wrong.output).not.toContain('did not answer within');

    const none = await runServerExpectingExit({ REDIS_URL: `redis://${host}` });
    expect(none.code).toBe(1);
    expect(none.output).toContain(`Redis at ${host} refused to authenticate (NOAUTH): it requires a password: put it in REDIS_URL`);
  }, 60_000);

  it('is reported as such by every command: webhooks, seed and worker', async () => {
    const env = { REDIS_URL: `redis://:not-${PASSWORD}@${host}`, WEBHOOK_URL: 'https://hooks.example.org/in' };
    for (const args of [['webhooks', 'stats'], ['webhooks', 'dead'], ['seed'], ['worker']]) {
      const run = await runServerCommand(args, env);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain(`Redis at ${host} refused to authenticate (WRONGPASS)`);
      expect(run.stderr, args.join(' ')).not.toContain('did not answer within');
      expect(run.stdout + run.stderr).not.toContain(`not-${PASSWORD}`);
    }
  }, 120_000);
});

describe('with the right password', () => {
  const prefix = `redis-settings:${randomUUID()}:`;

  it('names the Redis it uses at start (host, port, db, prefix) and never the password; a stop says shutting down, then stopped', async () => {
    const server = await startServerProcess({ REDIS_URL: `redis://:${PASSWORD}@${host}/3`, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info' });
    expect(server.output()).toContain(`"msg":"store: Redis at ${host} db 3, key prefix ${prefix}"`);
    expect(server.output()).toMatch(new RegExp(`"store":"redis","host":"127\\.0\\.0\\.1","port":${redis.port},"db":3,"tls":false,"prefix":"${prefix}"`));
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).not.toContain(PASSWORD);
    const log = messages(server.output());
    const shuttingDown = log.findIndex((m) => m.startsWith('shutting down'));
    expect(shuttingDown).toBeGreaterThan(-1);
    expect(log.at(-1)).toBe('stopped');
  }, 60_000);

  it('on SIGTERM with Redis gone: one line saying it is unreachable, one saying it stops without it, then stopped', async () => {
    const server = await startServerProcess({
      REDIS_URL: `redis://:${PASSWORD}@${host}`,
      REDIS_KEY_PREFIX: prefix,
      WEBHOOK_URL: 'https://hooks.example.org/in',
      LOG_LEVEL: 'info',
    });
    await redis.stop();
    try {
      await waitFor(() => server.output().includes('Redis unreachable'), { what: 'the outage line', timeoutMs: 15_000 });
      // Several reconnection attempts of each connection (store, queue, worker) go by: none is logged again.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await server.stop('SIGTERM')).toBe(0);
    } finally {
      await redis.restart();
    }
    const log = messages(server.output());
    expect(
      log.filter((m) => m.startsWith('Redis unreachable')),
      server.output(),
    ).toHaveLength(1);
    expect(log.filter((m) => /^(Redis (\(delivery queue\) )?connection error|delivery (queue|worker) error)$/.test(m))).toEqual([]);
    expect(log.filter((m) => m.startsWith('outbox relay pass failed'))).toHaveLength(1);
    const stopping = log.findIndex((m) => m.startsWith('shutting down'));
    expect(log[stopping + 1]).toBe('Redis is unreachable: stopping without it (events not yet delivered stay in Redis for the next instance)');
    expect(log.at(-1)).toBe('stopped');
  }, 60_000);
});
