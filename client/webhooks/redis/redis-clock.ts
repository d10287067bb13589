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
  // A max-queue: the readings of the last 10 s that no later reading matches in lead, leads
  // decreasing, so the first is the largest; each reading is added and dropped once (O(1) per call).
  let best: Reading[] = [];
  let head = 0;
  let latest: Reading | undefined;
  const dropOld = (at: number) => {
    while (head < best.length && best[head]!.at < at - KEEP_MS) head++;
    // Stryker disable next-line all: compacting only frees the dropped readings; the queue reads the same
    if (head > 64 && head * 2 > best.length) {
      best = best.slice(head);
      head = 0;
    }
  };
  return {
    now() {
      if (!latest) return undefined;
      const at = Date.now();
      dropOld(at);
      // The latest reading is the queue's last, so the first has the largest lead; an empty queue means all are older than 10 s.
      return at + (best[head] ?? latest).lead;
    },
    observe(redisMs) {
      const at = Date.now();
      const reading = { at, lead: redisMs - at };
      latest = reading;
      // Stryker disable next-line EqualityOperator: keeping an earlier reading of the same lead changes no answer, only the queue's length
      while (best.length > head && best[best.length - 1]!.lead <= reading.lead) best.pop();
      best.push(reading);
      dropOld(at);
    },
    reset(redisMs) {
      best = [];
      head = 0;
      this.observe(redisMs);
    },
  };
}

/** Redis's TIME reply ({seconds, microseconds}) in milliseconds. */
export const timeMs = ([seconds, micros]: readonly [string, string]) => Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
