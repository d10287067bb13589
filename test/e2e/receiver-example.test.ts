/** The copyable example (examples/webhook-receiver/server.ts) runs: express + Redis, logs events, shuts down cleanly. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { generateUrlToken } from '../../client/webhooks/index.js';
import { getFreePort } from '../helpers/free-port.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const script = fileURLToPath(new URL('../../examples/webhook-receiver/server.ts', import.meta.url));
let redis: RedisServer | undefined;
afterAll(async () => {
  await redis?.stop();
});

describe('examples/webhook-receiver', () => {
  it(
    'receives, logs via onEvent, answers 404 to a wrong token, keeps its keys under RECEIVER_KEY_PREFIX, exits 0 on SIGTERM',
    { timeout: 60_000 },
    async () => {
      redis = await startRedisServer();
      const port = await getFreePort();
      const token = generateUrlToken();
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
        env: { ...process.env, PORT: String(port), REDIS_URL: redis.url, WEBHOOK_URL_TOKEN: token, RECEIVER_KEY_PREFIX: 'example-test' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      try {
        await waitFor(() => out.includes('"listening"'), { timeoutMs: 30_000 });
        const url = `http://127.0.0.1:${port}/webhooks/session-events`;
        const event = { event: 'session.resumed', session: { id: 'sess_example' }, timestamp: '2026-11-21T16:00:00.000Z' };
        const post = (path: string) =>
          fetch(`${url}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
        expect((await post('not-the-token-not-the-token')).status).toBe(404);
        const ok = await post(token);
        expect(ok.status).toBe(200);
        expect(await ok.json()).toMatchObject({ received: true, duplicate: false });
        await waitFor(() => out.includes('"sessionId":"sess_example"'));
        // RECEIVER_KEY_PREFIX: every key the store wrote carries it as its hash tag.
        const admin = new Redis(redis.url);
        const keys = await admin.keys('*');
        await admin.quit();
        expect(keys.length).toBeGreaterThan(0);
        expect(keys.filter((key) => !key.includes('{example-test}'))).toEqual([]);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    },
  );
});
