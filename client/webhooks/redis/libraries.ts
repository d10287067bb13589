/** bullmq and ioredis, optional peers only the Redis store needs: a missing one gives the install command, not a bare ERR_MODULE_NOT_FOUND. */
import type * as BullMQ from 'bullmq';
import type * as IORedis from 'ioredis';

/** The install command the error names. */
export const REDIS_STORE_INSTALL = 'npm install bullmq ioredis';

/** What the Redis store uses of its two peer dependencies. */
export interface RedisLibraries {
  Queue: typeof BullMQ.Queue;
  Worker: typeof BullMQ.Worker;
  Redis: typeof IORedis.Redis;
  Cluster: typeof IORedis.Cluster;
}

/** The store could not load bullmq or ioredis; `cause` is the loader's error. */
export class RedisLibrariesMissingError extends Error {
  override name = 'RedisLibrariesMissingError';
}

const isMissing = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
};

// Literal specifiers, so bundlers and the import-graph test see them.
const importLibrary = (name: 'bullmq' | 'ioredis'): Promise<unknown> => (name === 'bullmq' ? import('bullmq') : import('ioredis'));

/**
 * Rejects with `RedisLibrariesMissingError` naming the install command when either is missing.
 * @example const { Queue, Redis } = await loadRedisLibraries();
 */
export async function loadRedisLibraries(importer: (name: 'bullmq' | 'ioredis') => Promise<unknown> = importLibrary): Promise<RedisLibraries> {
  try {
    const [bullmq, ioredis] = (await Promise.all([importer('bullmq'), importer('ioredis')])) as [typeof BullMQ, typeof IORedis];
    return { Queue: bullmq.Queue, Worker: bullmq.Worker, Redis: ioredis.Redis, Cluster: ioredis.Cluster };
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new RedisLibrariesMissingError(
      `session-resume-api/webhooks/redis needs the optional peer dependencies bullmq and ioredis, and one of them is not installed: run \`${REDIS_STORE_INSTALL}\`.`,
      { cause: error },
    );
  }
}
