/**
 * The endpoint's held backlog on Redis (x-decisions: endpoint-health), in a sorted set of our own
 * (`{outbox}:held`: job id by due time), shared by every instance. A held job waits in BullMQ's
 * delayed set far in the future (`job.moveToDelayed`, BullMQ's documented way for a processor
 * to put its job back), so BullMQ never runs it by itself and still counts it as pending; its id
 * joins the set first. A release is claimed by one instance at a time (a lease that expires on
 * its own): it moves the earliest due ids to `{outbox}:held-releasing` in one script, promotes
 * their jobs (`job.promote()`: to the far end of the waiting list, taken in that order) many at
 * once in due order, then forgets them. A release that died half way is put back by the next,
 * whose promotion of a job already promoted changes nothing. BullMQ's own keys are never read.
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { HeldBacklog } from './delivery-queue.js';

/** How far past its due time a held job waits in BullMQ's delayed set: 1000 years, never reached. */
export const PARK_OFFSET_MS = 1000 * 365.25 * 86_400_000;

/** How long a release may take before another instance may put its ids back and release them again, in ms. */
export const RELEASE_LEASE_MS = 10_000;

/** Jobs promoted at once by a release (one round trip each, sent together). */
const PROMOTE_CHUNK = 500;

/** How often, and how many times, a release looks whether a job it could not promote is being parked (about 1 s). */
const PARKING_CHECK_MS = 50;
const PARKING_CHECKS = 20;

/** How long a release waits for another instance's release to end, in ms, before giving up (the next claim tries again). */
const LEASE_WAIT_MS = 2_000;

/**
 * Takes the lease (KEYS[3]) and moves the ARGV[3] earliest due ids from the held set (KEYS[1]) to
 * the releasing set (KEYS[2]); ids a dead release left in the releasing set go back first.
 * Returns the ids with their due times, or false when another release holds the lease.
 */
const CLAIM = `
if not redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
local left = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #left, 2 do redis.call('ZADD', KEYS[1], 'NX', left[i + 1], left[i]) end
redis.call('DEL', KEYS[2])
local taken = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1, 'WITHSCORES')
for i = 1, #taken, 2 do
  redis.call('ZADD', KEYS[2], taken[i + 1], taken[i])
  redis.call('ZREM', KEYS[1], taken[i])
end
return taken`;

/** Forgets the released ids (ARGV[2..]) and gives the lease (KEYS[2]) back if it is still ARGV[1]'s. */
const FINISH = `
for i = 2, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;

/** The keys of the backlog (server/redis/redis-keys.ts). */
export interface BullmqBacklogKeys {
  held: string;
  heldReleasing: string;
  heldLease: string;
  heldAdopted: string;
}

/** The held backlog of one BullMQ queue; `add` records a held job before the worker parks it. */
export interface BullmqBacklog extends HeldBacklog {
  /** Records `id` as held, due at `dueAt` (the first due time recorded stays). */
  add(id: string, dueAt: number): Promise<void>;
  /**
   * Records the jobs an earlier version parked without recording them (a delay past half of
   * {@link PARK_OFFSET_MS}, read through BullMQ's `getDelayed` and each job's `delay`), once per
   * key prefix; returns how many.
   */
  adopt(): Promise<number>;
}

/** A job's due time, from its data (`dueAt`, written with a failed attempt) or its first delay. */
function dueOf(job: Job): number {
  const data = job.data as { dueAt?: unknown } | undefined;
  return typeof data?.dueAt === 'number' ? data.dueAt : job.timestamp + (job.opts.delay ?? 0);
}

/** The time a held job due at `dueAt` is parked at in BullMQ's delayed set. */
export function parkedAt(dueAt: number): number {
  return PARK_OFFSET_MS + Math.max(0, dueAt);
}

/**
 * The backlog of `queue`, its set under `keys`, read and written through `connection`.
 * @example const backlog = createBullmqBacklog(queue, connection, redisKeys(prefix), logger);
 */
export function createBullmqBacklog(queue: Queue, connection: Redis | Cluster, keys: BullmqBacklogKeys, logger: Logger): BullmqBacklog {
  const release = async (count: number): Promise<number> => {
    if (count < 1) return 0;
    // The process id in the lease tells an operator (and a test) which process is releasing.
    const token = `${process.pid}:${randomUUID()}`;
    const taken = await claim(connection, keys, token, count);
    if (taken === undefined) return count;
    // A release that fails leaves its ids in the releasing set: the next one puts them back first.
    const promoted = await promoteInOrder(queue, connection, keys, taken, logger).then(
      () => true,
      (err: unknown) => {
        logger.warn({ err: (err as Error).message, events: taken.length }, 'held events not released; the next release takes them again');
        return false;
      },
    );
    await connection.eval(FINISH, 2, keys.heldReleasing, keys.heldLease, token, ...(promoted ? taken.map(([id]) => id) : []));
    return taken.length;
  };
  // The adoption under way: a count waits for it, so the first drain sees what it recorded.
  let adoption: Promise<number> | undefined;
  return {
    async count() {
      await adoption?.catch(() => 0);
      return connection.zcard(keys.held);
    },
    release,
    adopt() {
      adoption = adoptParked(queue, connection, keys);
      return adoption;
    },
    async add(id, dueAt) {
      await connection.zadd(keys.held, 'NX', dueAt, id);
    },
  };
}

/** Records the jobs parked without a record, once per key prefix (again at the next start if it fails). */
async function adoptParked(queue: Queue, connection: Redis | Cluster, keys: BullmqBacklogKeys): Promise<number> {
  if ((await connection.set(keys.heldAdopted, '1', 'NX')) === null) return 0;
  try {
    const parked = (await queue.getDelayed(0, -1)).filter((job) => job.delay > PARK_OFFSET_MS / 2);
    for (const job of parked) await connection.zadd(keys.held, 'NX', dueOf(job), String(job.id));
    return parked.length;
  } catch (err) {
    await connection.del(keys.heldAdopted);
    throw err;
  }
}

/** The ids a release takes, earliest due first, with their due times; undefined when another release held the lease throughout. */
async function claim(connection: Redis | Cluster, keys: BullmqBacklogKeys, token: string, count: number): Promise<[string, number][] | undefined> {
  const until = Date.now() + LEASE_WAIT_MS;
  for (;;) {
    const reply = (await connection.eval(CLAIM, 3, keys.held, keys.heldReleasing, keys.heldLease, token, RELEASE_LEASE_MS, count)) as string[] | null;
    if (reply) {
      const pairs: [string, number][] = [];
      for (let i = 0; i < reply.length; i += 2) pairs.push([reply[i]!, Number(reply[i + 1])]);
      return pairs;
    }
    // Another instance is releasing: its release ends within a lease, most within milliseconds.
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Promotes the jobs of `taken` in due order: the commands of a chunk go out together, in order,
 * on the queue's one connection, so BullMQ's waiting list receives them in that order.
 */
async function promoteInOrder(queue: Queue, connection: Redis | Cluster, keys: BullmqBacklogKeys, taken: [string, number][], logger: Logger): Promise<void> {
  for (let start = 0; start < taken.length; start += PROMOTE_CHUNK) {
    const chunk = taken.slice(start, start + PROMOTE_CHUNK);
    const jobs = await Promise.all(chunk.map(([id]) => queue.getJob(id)));
    await Promise.all(
      chunk.map(async ([id, dueAt], i) => {
        const job = jobs[i];
        // Gone (delivered and trimmed, or removed): nothing to release.
        if (!job) return;
        await job.promote().catch((err: unknown) => notPromoted(job, id, dueAt, err, connection, keys, logger));
      }),
    );
  }
}

/**
 * A promotion that failed: a job no longer delayed was promoted by an earlier release or is
 * delivered (nothing to do); a job still being parked by the worker that held it (its id is
 * recorded first) is promoted once parked; a job still delayed goes back to the held set, and the
 * failure is logged, so the next release tries again.
 */
async function notPromoted(
  job: Job,
  id: string,
  dueAt: number,
  err: unknown,
  connection: Redis | Cluster,
  keys: BullmqBacklogKeys,
  logger: Logger,
): Promise<void> {
  let state = await job.getState();
  for (let tries = 0; state === 'active' && tries < PARKING_CHECKS; tries++) {
    await new Promise((resolve) => setTimeout(resolve, PARKING_CHECK_MS));
    state = await job.getState();
  }
  if (state !== 'delayed') return;
  const last = await job.promote().then(
    () => undefined,
    (again: unknown) => again,
  );
  if (last === undefined) return;
  await connection.zadd(keys.held, 'NX', dueAt, id);
  logger.warn({ jobId: id, err: (err as Error).message, again: (last as Error).message }, 'held event not released; it stays held for the next release');
}
