/** What every bench target is once started, apart from the targets themselves (bench/targets.ts). */
import type { Listening } from '../test/helpers/listen.js';

/** A started target: its base URL and how to stop everything it started. */
export interface Target extends Listening {
  stop(): Promise<void>;
}
