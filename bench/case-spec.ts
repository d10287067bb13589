/** The shape of one bench case, apart from the lists of cases (bench/cases.ts, bench/sandbox-cases.ts). */
import type { Target } from './target.js';
import type { TargetName } from './targets.js';

/** One case: its group, name, baseline, how to start its target and what to send. */
export interface CaseSpec {
  group: string;
  /** Start every case of this run of consecutive same-group cases at once and alternate their loads. */
  interleaved?: boolean;
  name: string;
  baseline: string;
  compareWith?: string[];
  start(): Promise<Target>;
  /** The same target by name, for `isolate` runs (bench/serve-target.ts). */
  isolated?: { name: TargetName; redisUrl?: string };
  /** Runs before start (e.g. fills Redis up to a size); resolves with the seconds it took. */
  prepare?(): Promise<number>;
  path: string | ((n: number) => string);
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | ((n: number) => string);
}
