/**
 * The Redis client both sides accept: a single-node ioredis `Redis` or a `Cluster`. Code on
 * top treats both alike, since the keys one script touches share a hash tag.
 */
import type { Cluster, Redis } from 'ioredis';

/** A single-node client or a cluster client. */
export type RedisConnection = Redis | Cluster;
