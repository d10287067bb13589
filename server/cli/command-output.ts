/** What the server's commands share: where they write, and how one runs its work against the engine. */
import type { RedisDelivery } from '../webhooks/redis-delivery.js';

/** Where a command writes: standard output and standard error, injectable for tests. */
export interface CommandOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs one command's work against the engine; resolves when its exit code is set. */
export type RunWithDelivery = (work: (delivery: RedisDelivery) => Promise<number>) => () => Promise<void>;
