/**
 * The bench's load cases: each one a load against a target, grouped with the baseline it is
 * compared to in the same run (speed claims are ratios, never absolute numbers).
 */
import type { SessionEvent } from '../spec/types.js';
import { runLoad, type LoadResult } from './run-case.js';
import { fillRedisSessions } from './redis-fill.js';
import {
  BENCH_KEY,
  BENCH_SESSION,
  startBareExpress,
  startBareHttp,
  startBareHttpResume,
  startFastify,
  startMemoryReferenceServer,
  startReceiver,
  startRedisReferenceServer,
  type Target,
} from './targets.js';

/** Settings of one bench run. */
export interface BenchOptions {
  /** Seconds of measured load per case (default 3). */
  durationS: number;
  /** Concurrent connections per case (default 10). */
  connections: number;
  /** Redis for the Redis cases (a private server: the bench floods it). */
  redisUrl: string;
}

/** One measured case, with the name of its baseline (itself when it is a baseline). */
export interface CaseResult {
  group: string;
  name: string;
  baseline: string;
  /** Further rows of the group this one is also compared to (an extra ratio column each). */
  compareWith?: string[];
  /** Seconds `prepare` took (the growth rows' Redis fill), when there was one. */
  prepareSeconds?: number;
  result: LoadResult;
}

interface CaseSpec {
  group: string;
  name: string;
  baseline: string;
  compareWith?: string[];
  start(): Promise<Target>;
  /** Runs before start (e.g. fills Redis up to a size); resolves with the seconds it took. */
  prepare?(): Promise<number>;
  path: string | ((n: number) => string);
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | ((n: number) => string);
}

const resumeHeaders = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const event = (id: string, timestamp: string): string =>
  JSON.stringify({ event: 'session.resumed', session: { id }, timestamp } satisfies SessionEvent);
const distinct = (n: number) => event(`bench_${process.pid}_${Date.now()}_${n}`, new Date().toISOString());
const duplicate = event('bench_duplicate', '2026-11-21T00:00:00.000Z');

const EXPRESS = 'bare express 5, same 409 JSON';
const NODE_HTTP = 'bare node:http, same 409 JSON';
const FASTIFY = 'fastify 5, schema-validated route';

/** Sizes of the growth group (sessions in Redis); BENCH_GROWTH_MAX caps it (default 1 000 000). */
export function growthSizes(max: number): number[] {
  return [10_000, 100_000, 1_000_000].filter((n) => n <= max);
}

/** Every case of a run, in order; the first of each group is its baseline. */
export function listCases(redisUrl: string, growthMax = 1_000_000): CaseSpec[] {
  const resume = { path: `/v1/sessions/${BENCH_SESSION}/resume`, method: 'POST' as const, headers: resumeHeaders };
  const hook = { path: '/', method: 'POST' as const, headers: { 'content-type': 'application/json' } };
  const vs = { baseline: EXPRESS, compareWith: [NODE_HTTP, FASTIFY] };
  const production = { validateResponses: false };
  const growthBase = 'reference server, Redis, 1 session';
  // Every request asks for a different session among the n seeded (all running: 409).
  const spread = (n: number) => (i: number) => `/v1/sessions/bench_${(i * 7919) % n}/resume`;
  return [
    { group: 'resume', name: EXPRESS, baseline: EXPRESS, compareWith: [NODE_HTTP, FASTIFY], start: startBareExpress, ...resume },
    { group: 'resume', name: NODE_HTTP, ...vs, start: startBareHttpResume, ...resume },
    { group: 'resume', name: FASTIFY, ...vs, start: startFastify, ...resume },
    { group: 'resume', name: 'reference server, memory store, responses validated (tests)', ...vs, start: () => startMemoryReferenceServer(), ...resume },
    { group: 'resume', name: 'reference server, memory store (production defaults)', ...vs, start: () => startMemoryReferenceServer(production), ...resume },
    { group: 'resume', name: 'reference server, Redis store (production defaults)', ...vs, start: () => startRedisReferenceServer(redisUrl, production), ...resume },
    { group: 'growth', name: growthBase, baseline: growthBase, start: () => startRedisReferenceServer(redisUrl, production), ...resume },
    ...growthSizes(growthMax).map((n) => ({
      group: 'growth',
      name: `reference server, Redis, ${n.toLocaleString('en-US')} sessions`,
      baseline: growthBase,
      prepare: () => fillRedisSessions(redisUrl, n),
      start: () => startRedisReferenceServer(redisUrl, production),
      ...resume,
      path: spread(n),
    })),
    { group: 'webhook ack', name: 'bare node:http 200', baseline: 'bare node:http 200', start: startBareHttp, ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, memory store, distinct events', baseline: 'bare node:http 200', start: () => startReceiver('memory'), ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, Redis store, distinct events', baseline: 'bare node:http 200', start: () => startReceiver({ redisUrl }), ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, Redis store, one event repeated', baseline: 'bare node:http 200', start: () => startReceiver({ redisUrl }), ...hook, body: duplicate },
  ];
}

/** Runs `cases` one after the other (each on a fresh target, warmed up for 1 s), stopping every target. */
export async function runCases(cases: CaseSpec[], options: Omit<BenchOptions, 'redisUrl'>): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const prepareSeconds = await c.prepare?.();
    const target = await c.start();
    try {
      const fixed = typeof c.path === 'string' ? c.path : c.path(0);
      const load = {
        url: `${target.url}${fixed}`,
        method: c.method,
        headers: c.headers ?? {},
        connections: options.connections,
        ...(c.body ? { body: c.body } : {}),
        ...(typeof c.path === 'function' ? { path: c.path } : {}),
      };
      await runLoad({ ...load, durationS: 1 });
      const result = await runLoad({ ...load, durationS: options.durationS });
      results.push({
        group: c.group,
        name: c.name,
        baseline: c.baseline,
        ...(c.compareWith ? { compareWith: c.compareWith } : {}),
        ...(prepareSeconds === undefined ? {} : { prepareSeconds }),
        result,
      });
    } finally {
      await target.stop();
    }
  }
  return results;
}
