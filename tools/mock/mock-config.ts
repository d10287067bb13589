/** Typed configuration of the mock launcher, read from the environment by its entry point only. */
import { parseWholeNumber } from '@session-resume-api/runtime/options-error';

/** Settings of `npm run mock`. */
export interface MockConfig {
  /** TCP port Prism listens on (default 4010). */
  port: number;
  /** Interface Prism binds (127.0.0.1). */
  host: string;
}

/** Reads `PORT` (default 4010; an integer 1–65535, else throws with what to fix). */
export function readMockConfig(env: Record<string, string | undefined>): MockConfig {
  const raw = env.PORT?.trim();
  const port = raw ? parseWholeNumber(raw, { min: 1, max: 65_535 }) : 4010;
  if (port === undefined) {
    throw new Error(`PORT must be an integer between 1 and 65535, got "${raw}"`);
  }
  return { port, host: '127.0.0.1' };
}
