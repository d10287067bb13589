/**
 * `session-resume-api-server seed [--reset]`: seeds Redis from SESSIONS_FILE (or the demo
 * set) without starting the server. `--reset` first deletes every session under
 * REDIS_KEY_PREFIX, so each comes back exactly as the file says.
 */
import { Command } from 'commander';
import { loadConfig, redisTargetOf, type Env } from '../config.js';
import { createRedisConnection, waitUntilConnected } from '../redis/create-redis-connection.js';
import { createRedisSeedMarker, resetRedisSessions } from '../sessions/session-seed-admin.js';
import { createRedisSessionStore } from '../sessions/redis-session-store.js';
import { seedStore } from '../sessions/seed-on-start.js';
import { openSeedSource } from '../sessions/session-seeds.js';
import { UsageError } from '@session-resume-api/runtime/usage-error';
import { redisLocation } from '../start-up-summary.js';

/** Options of the `seed` command. */
interface SeedOptions {
  reset?: boolean;
}

/**
 * Builds the `seed` command over `env` (REDIS_URL or REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX,
 * SESSIONS_FILE). It prints one line: what was deleted, created and kept.
 * @example
 * // REDIS_URL=redis://127.0.0.1:6379 SESSIONS_FILE=sessions.json session-resume-api-server seed --reset
 * program.addCommand(createSeedCommand(process.env));
 */
export function createSeedCommand(env: Env): Command {
  return new Command('seed')
    .exitOverride()
    .description(
      'Create the sessions of SESSIONS_FILE (or the demo set) that are missing in Redis (REDIS_URL or REDIS_CLUSTER_NODES). ' +
        'Existing sessions are kept as they are, unless --reset.',
    )
    .option(
      '--reset',
      'first delete every session under REDIS_KEY_PREFIX (idempotency records and webhook events are kept), then seed: every session is back as the file says',
    )
    .action(async (options: SeedOptions) => {
      const config = loadConfig(env);
      const target = redisTargetOf(config);
      if (!target) {
        throw new UsageError('seed needs REDIS_URL or REDIS_CLUSTER_NODES: the in-memory store is seeded at every start.');
      }
      const source = await openSeedSource(config.sessionsFile);
      const redis = createRedisConnection(target, { commandTimeoutMs: 10_000 });
      try {
        await waitUntilConnected(redis);
        const deleted = options.reset ? await resetRedisSessions(redis, config.redisKeyPrefix) : 0;
        const store = createRedisSessionStore({ client: redis, keyPrefix: config.redisKeyPrefix });
        const marker = createRedisSeedMarker(redis, config.redisKeyPrefix);
        const result = await seedStore({ store, source, marker, force: true });
        const reset = options.reset ? `deleted ${deleted} sessions, then ` : '';
        // Where it wrote, named as the server's start-up line names it (never the password).
        process.stdout.write(
          `Seeded ${redisLocation(config) ?? ''} from ${source.label} under ${config.redisKeyPrefix}: ${reset}created ${result.created}, kept ${result.kept}.\n`,
        );
      } finally {
        redis.disconnect();
      }
    });
}
