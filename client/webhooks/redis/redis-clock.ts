/**
 * Redis's clock as an instance can know it, never ahead: an answer carrying Redis's TIME means its
 * clock is now at least that plus the local time elapsed. A deadline stated from this lower bound is
 * never later in Redis than when this instance gives up, as long as neither clock steps.
 */

/** ms a reading counts. */
const KEEP_MS = 10_000;

/** One reading: at local time `at`, Redis's clock was at least `at + lead`. */
interface Reading {
  at: number;
  lead: number;
}

/** Redis's clock seen from here. */
export interface RedisClock {
  /** At least (ms); undefined before the first reading. */
  now(): number | undefined;
  /** Takes Redis's time `redisMs`, read by a command whose answer arrived just now. */
  observe(redisMs: number): void;
  /** Forgets every reading but `redisMs` (Redis's clock moved in a way the readings did not allow). */
  reset(redisMs: number): void;
}

/**
 * `now()` uses the largest lead of the last 10 s's readings (the fastest answer bounds it best), else the latest.
 * @example clock.observe(timeMs([seconds, micros])); const deadline = createRedisClock().now()! + 1000;
 */
export function createRedisClock(): RedisClock {
  let readings: Reading[] = [];
  const recent = (at: number) => readings.filter((r) => r.at >= at - KEEP_MS);
  return {
    now() {
      const latest = readings.at(-1);
      if (!latest) return undefined;
      const at = Date.now();
      return at + recent(at).reduce((lead, r) => Math.max(lead, r.lead), latest.lead);
    },
    observe(redisMs) {
      const at = Date.now();
      readings = [...recent(at), { at, lead: redisMs - at }];
    },
    reset(redisMs) {
      // Stryker disable next-line ArrayDeclaration: observe() below drops anything in the list that is not a reading of the last 10 s
      readings = [];
      this.observe(redisMs);
    },
  };
}

/** Redis's TIME reply ({seconds, microseconds}) in milliseconds. */
export const timeMs = ([seconds, micros]: readonly [string, string]) => Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
