/**
 * A crash behind dead intents: two instances on one Redis (own redis-server); Redis stopped
 * while 700 unkeyed resumes of unknown ids arrive (503), then started again; then one instance
 * SIGKILLed with 200 resumes in flight. Every session it flipped must be delivered within 10 s
 * of the kill, whatever number of dead intents lies ahead. Loopback only.
 */
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { redisKeys } from '../../../server/redis/redis-keys.js';
import {
  deliveriesFor,
  postResume,
  serverEnv,
  startHttpsReceiver,
  startPrivateRedis,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

const CRASH_BOUND_MS = 10_000;
const keys = redisKeys('session-resume:');
const SESSIONS = Array.from({ length: 200 }, (_, i) => `flip_${i}`);

let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
let receiver: HttpsReceiver | undefined;
let admin: Redis | undefined;
const servers: ServerProcess[] = [];

afterAll(async () => {
  admin?.disconnect();
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await redis?.stop();
});

it('delivers every session a SIGKILLed instance flipped within 10 s, behind 700 requests that flipped nothing', async () => {
  redis = await startPrivateRedis();
  receiver = await startHttpsReceiver();
  const files = writeFixtures(receiver, SESSIONS);
  for (let i = 0; i < 2; i++) servers.push(await startServerProcess(serverEnv(redis.url, receiver, files)));
  const [victim, survivor] = servers as [ServerProcess, ServerProcess];
  admin = new Redis(redis.url);

  // Redis stopped while 700 unkeyed resumes of unknown ids arrive: all 503.
  const pid = await redis.pid();
  process.kill(pid, 'SIGSTOP');
  let ghosts: { status: number }[];
  try {
    ghosts = await Promise.all(Array.from({ length: 700 }, (_, i) => postResume(servers[i % 2]!.url, `ghost_${i}`)));
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  expect(ghosts.every((answer) => answer.status === 503)).toBe(true);
  // Requests that flipped nothing keep no intent (their late ZADD is followed by a ZREM).
  await waitFor(async () => (await admin!.zcard(keys.intents)) === 0, { what: 'the dead intents to go', timeoutMs: 5000 });

  // Intents whose scripts may still run late (a 5xx after the script was sent) stay; 700 of
  // them, older than every new one, must not hold up the relay.
  const old = Date.now() - 60_000;
  const orphans = Array.from({ length: 700 }, (_, i) => [old + i, JSON.stringify([`orphan_${i}`, `msg_orphan_${i}`])]).flat();
  await admin.zadd(keys.intents, ...orphans);

  // 200 resumes sent to the victim; SIGKILL once a third are answered, the rest in flight.
  let answered = 0;
  let third: () => void = () => undefined;
  const thirdAnswered = new Promise<void>((resolve) => (third = resolve));
  const inFlight = SESSIONS.map((id) =>
    postResume(victim.url, id)
      .catch(() => ({ status: 0 }))
      .finally(() => ++answered >= SESSIONS.length / 3 && third()),
  );
  await thirdAnswered;
  await victim.stop('SIGKILL');
  const killedAt = Date.now();
  await Promise.all(inFlight);

  const statuses = await Promise.all(SESSIONS.map((id) => admin!.hget(keys.session(id), 'status')));
  const flipped = SESSIONS.filter((_, i) => statuses[i] === 'running');
  console.info(`crash-behind-dead-intents: the victim flipped ${flipped.length} of ${SESSIONS.length} sessions before it died`);
  expect(flipped.length).toBeGreaterThan(0);
  const left = CRASH_BOUND_MS - (Date.now() - killedAt);
  await waitFor(() => flipped.every((id) => deliveriesFor(receiver!, id).length > 0), {
    what: `every flipped session delivered within ${CRASH_BOUND_MS} ms of the crash`,
    timeoutMs: Math.max(left, 1),
  });
  const latest = Math.max(...flipped.map((id) => deliveriesFor(receiver!, id)[0]!.receivedAt));
  console.info(`crash-behind-dead-intents: last flipped session delivered ${latest - killedAt} ms after the kill`);
  expect(latest - killedAt).toBeLessThanOrEqual(CRASH_BOUND_MS);
  // The survivor is still serving; nothing of the unflipped sessions was delivered.
  expect((await postResume(survivor.url, 'ghost_x')).status).toBe(404);
  expect(SESSIONS.filter((_, i) => statuses[i] !== 'running').every((id) => deliveriesFor(receiver!, id).length === 0)).toBe(true);
}, 120_000);
