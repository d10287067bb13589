/**
 * Redis's clock as one instance can know it: never ahead of it. Each answer that carries
 * Redis's time (the record script returns its TIME) says that Redis's clock read `redisMs` at
 * some moment before the answer arrived, so Redis's clock is now at least `redisMs` plus the
 * local time elapsed since. The record path states its deadline in Redis's clock from this
 * lower bound: a deadline judged by Redis (TIME in the script) is then never later than the
 * moment this instance gives up waiting, whatever the two clocks say, as long as neither steps.
 */

/** Milliseconds a reading counts: the tightest of the recent ones is used. */
const KEEP_MS = 10_000;

/** One reading: at local time `at`, Redis's clock was at least `at + lead`. */
interface Reading {
  at: number;
  lead: number;
}

/** Redis's clock seen from here (see `createRedisClock`). */
export interface RedisClock {
  /** Redis's time now, at least (ms); undefined before the first reading. */
  now(): number | undefined;
  /** Takes Redis's time `redisMs`, read by a command whose answer arrived just now. */
  observe(redisMs: number): void;
  /** Forgets every reading but `redisMs` (Redis's clock moved in a way the readings did not allow). */
  reset(redisMs: number): void;
}

/**
 * Creates the clock. `now()` uses the largest lead of the readings of the last 10 s (the answer
 * that came back fastest bounds it best), and the latest reading when none is that recent.
 *
 * @example
 * const clock = createRedisClock();
 * clock.observe(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000));
 * const deadline = clock.now()! + 1000; // in Redis's clock, never later than 1 s from here
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
