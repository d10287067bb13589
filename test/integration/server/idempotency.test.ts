/**
 * Idempotency-Key on resume (x-decisions: idempotency-key), in-process over real HTTP, on the
 * memory store and on Redis (random key prefix on the shared Redis).
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../../server/app.js';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { createRedisClient } from '../../../server/redis/redis-client.js';
import { waitUntilConnected } from '../../../server/redis/create-redis-connection.js';
import { createRedisSessionStore } from '../../../server/sessions/redis-session-store.js';
import type { SessionStore } from '../../../server/sessions/session-store.js';
import { contract } from '@session-resume-api/runtime/contract';
import { listen, type Listening } from '../../helpers/listen.js';
import { deletePrefix } from '../../helpers/redis-keys.js';

const KEYS = ['idem-key-a', 'idem-key-b'];
const running: Listening[] = [];
const clients: Redis[] = [];
const prefixes: string[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
  for (const prefix of prefixes) await deletePrefix(inject('redisUrl'), prefix);
  await Promise.all(clients.map((c) => c.quit()));
});

const stores: Record<string, () => Promise<SessionStore>> = {
  memory: async () => createMemorySessionStore(),
  redis: async () => {
    const client = createRedisClient(inject('redisUrl'));
    clients.push(client);
    await waitUntilConnected(client);
    const keyPrefix = `idem-test:${randomUUID()}:`;
    prefixes.push(keyPrefix);
    return createRedisSessionStore({ client, keyPrefix, events: false });
  },
};

async function serve(store: SessionStore): Promise<string> {
  await store.seed(['p1', 'p2', 'p3', 'p4', 'p5'].map((id) => ({ id, status: 'paused' })).concat({ id: 'r1', status: 'running' }));
  const server = await listen(await createApp({ store, apiKeys: KEYS }));
  running.push(server);
  return server.url;
}

const post = (url: string, id: string, key?: string, apiKey = KEYS[0]) =>
  fetch(`${url}/v1/sessions/${encodeURIComponent(id)}/resume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
  });

for (const [name, makeStore] of Object.entries(stores)) {
  describe(`Idempotency-Key (${name} store)`, () => {
    it('a repeat gets the recorded 200 with Idempotent-Replayed: true; the session resumed once', async () => {
      const url = await serve(await makeStore());
      const first = await post(url, 'p1', 'k1');
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await post(url, 'p1', 'k1');
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual({ success: true, message: 'Session resumed.' });
      // A new key sees the real state.
      expect((await post(url, 'p1', 'k2')).status).toBe(409);
    });

    it('records 409 answers too, never a 404: once the session exists (reseeded after a data loss), the same key resumes it', async () => {
      const store = await makeStore();
      const url = await serve(store);
      expect((await post(url, 'missing', 'k404')).status).toBe(404);
      const again404 = await post(url, 'missing', 'k404');
      expect([again404.status, again404.headers.get('idempotent-replayed')]).toEqual([404, null]);
      await store.seed([{ id: 'missing', status: 'paused' }]);
      const resumed = await post(url, 'missing', 'k404');
      expect([resumed.status, resumed.headers.get('idempotent-replayed')]).toEqual([200, null]);
      expect((await post(url, 'r1', 'k409')).status).toBe(409);
      const replay409 = await post(url, 'r1', 'k409');
      expect(replay409.status).toBe(409);
      expect(await replay409.text()).toContain('not_paused');
    });

    it('the same key with another session id gets 422 idempotency_key_reused', async () => {
      const url = await serve(await makeStore());
      expect((await post(url, 'p2', 'shared')).status).toBe(200);
      const reused = await post(url, 'p3', 'shared');
      expect(reused.status).toBe(422);
      const body = (await reused.json()) as { error: string };
      expect(body.error).toBe('idempotency_key_reused');
      expect(contract.validate('Error', body)).toMatchObject({ ok: true });
      // p3 was not touched.
      expect((await post(url, 'p3', 'fresh')).status).toBe(200);
    });

    it('keys are scoped to the API key', async () => {
      const url = await serve(await makeStore());
      expect((await post(url, 'p4', 'same', KEYS[0])).status).toBe(200);
      const other = await post(url, 'p4', 'same', KEYS[1]);
      expect(other.status).toBe(409);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
    });

    it('accepts 255 characters and answers 400 beyond, never 500', async () => {
      const url = await serve(await makeStore());
      expect((await post(url, 'p5', 'x'.repeat(255))).status).toBe(200);
      const long = await post(url, 'p5', 'x'.repeat(256));
      expect(long.status).toBe(400);
      expect(contract.validate('Error', await long.json())).toMatchObject({ ok: true });
    });

    it('two Idempotency-Key headers are refused with 400; one key holding a comma is one key', async () => {
      const url = await serve(await makeStore());
      const two = await postRaw(url, 'p2', ['Idempotency-Key', 'k-one', 'Idempotency-Key', 'k-two']);
      expect(two.status).toBe(400);
      expect(two.body).toMatch(/Send one Idempotency-Key header/);
      const comma = await postRaw(url, 'p2', ['Idempotency-Key', 'k-one, k-two']);
      expect(comma.status).toBe(200);
      expect((await postRaw(url, 'p2', ['Idempotency-Key', 'k-one, k-two'])).replayed).toBe('true');
    });
  });
}

/** A resume whose headers are sent exactly as listed (fetch would join repeated ones into one line). */
async function postRaw(url: string, id: string, headers: string[]): Promise<{ status: number; body: string; replayed: string | undefined }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v1/sessions/${id}/resume`,
        headers: ['Host', `127.0.0.1:${port}`, 'Content-Length', '0', 'Authorization', `Bearer ${KEYS[0]}`, ...headers],
      },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (body += chunk))
          .on('end', () => {
            const replayed = res.headers['idempotent-replayed'];
            resolve({ status: res.statusCode ?? 0, body, replayed: typeof replayed === 'string' ? replayed : undefined });
          });
      },
    );
    req.on('error', reject).end();
  });
}

describe('Idempotency-Key in flight', () => {
  it('a repeat while the first is still being answered gets 409 idempotency_key_in_use without the not_paused marker', async () => {
    const store = createMemorySessionStore();
    const resume = store.resume.bind(store);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => undefined;
    const inStore = new Promise<void>((resolve) => (entered = resolve));
    store.resume = async (id, options) => {
      entered();
      await gate;
      return resume(id, options);
    };
    const url = await serve(store);
    const first = post(url, 'p1', 'slow');
    // The first request is parked in the store.
    await inStore;
    const second = await post(url, 'p1', 'slow');
    release();
    expect(second.status).toBe(409);
    const text = await second.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'idempotency_key_in_use' });
    expect(text).not.toContain('not_paused');
    expect((await first).status).toBe(200);
  });
});

describe('Idempotency-Key from the outside world (property)', () => {
  it('any key of 1 to 255 visible ASCII characters resumes once, then replays the same answer', async () => {
    const store = createMemorySessionStore();
    const url = await serve(store);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~!#$%&*+/=?^`|'.split('')), minLength: 1, maxLength: 252 }), async (generated) => {
        // Unique per run: fast-check may generate a key twice, and a key reused for another session is rightly 422.
        const key = `${n}.${generated}`;
        const id = `prop_${n++}`;
        await store.seed([{ id, status: 'paused' }]);
        const first = await post(url, id, key);
        const second = await post(url, id, key);
        return first.status === 200 && second.status === 200 && second.headers.get('idempotent-replayed') === 'true';
      }),
      { numRuns: 40 },
    );
  });
});
