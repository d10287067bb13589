/**
 * docs/server.md's outage lines when Redis restarts under a running server (its own
 * redis-server): one line saying Redis is unreachable, one saying it answers again, each once,
 * whether Redis comes back before the first reconnection attempt or after several.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { startServerProcess } from '../../helpers/server-process.js';
import { waitFor } from '../../helpers/wait-for.js';

/** The messages of the JSON log lines in `output`, in order. */
const messages = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

it.each([
  ['at once', 0],
  ['after several reconnection attempts', 3000],
])(
  'Redis restarted %s: "Redis unreachable … retrying every second" once, then "Redis answers again" once',
  async (_when, downMs) => {
    const server = await startServerProcess({ REDIS_URL: redis.url, WEBHOOK_URL: 'https://hooks.example.org/in', LOG_LEVEL: 'info' });
    try {
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await redis.restart();
      await waitFor(() => server.output().includes('Redis answers again'), { what: 'the line saying Redis answers again', timeoutMs: 20_000 }).catch(
        (err: Error) => {
          throw new Error(`${err.message}\n${server.output()}`);
        },
      );
      expect(await server.stop('SIGTERM')).toBe(0);
    } finally {
      await server.stop('SIGKILL').catch(() => undefined);
    }
    const log = messages(server.output());
    const down = log.filter((m) => /^Redis unreachable \(.+\): retrying every second/.test(m));
    const back = log.filter((m) => m === 'Redis answers again');
    expect(down, server.output()).toHaveLength(1);
    expect(back, server.output()).toHaveLength(1);
    expect(log.indexOf(down[0]!)).toBeLessThan(log.indexOf('Redis answers again'));
  },
  60_000,
);
