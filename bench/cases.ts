/**
 * The bench's load cases: each one a load against a target, grouped with the baseline it is
 * compared to in the same run (speed claims are ratios, never absolute numbers).
 */
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { runLoad, type LoadResult } from './run-case.js';
import { fillRedisSessions } from './redis-fill.js';
import { listSandboxCases } from './sandbox-cases.js';
import {
  BENCH_KEY,
  BENCH_SESSION,
  startBareExpress,
  startExpressValidator,
  startBareHttp,
  startBareHttpResume,
  startFastify,
  startMemoryReferenceServer,
  startReceiver,
  startRedisReferenceServer,
  type Target,
  type TargetName,
} from './targets.js';
import { cpuUntilIdle, startIsolated, type IsolatedTarget } from './isolated-target.js';
import { watchInFront } from './watch-target.js';

/** Settings of one bench run. */
export interface BenchOptions {
  /** Seconds of measured load per case (default 3). */
  durationS: number;
  /** Concurrent connections per case (default 10). */
  connections: number;
  /**
   * Measured loads per case, keeping the best (default 1). The box is shared: the best of a few
   * short loads is the one least disturbed by other work. Cases of an `interleaved` group are
   * all started first and loaded in turn, round after round.
   */
  rounds?: number;
  /** Run each case's server in its own process (when it has an `isolated` name) and measure its CPU per request. */
  isolate?: boolean;
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

import type { CaseSpec } from './case-spec.js';

export type { CaseSpec } from './case-spec.js';

const resumeHeaders = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const event = (id: string, timestamp: string): string => JSON.stringify({ event: 'session.resumed', session: { id }, timestamp } satisfies SessionEvent);
const distinct = (n: number) => event(`bench_${process.pid}_${Date.now()}_${n}`, new Date().toISOString());
const duplicate = event('bench_duplicate', '2026-11-21T00:00:00.000Z');

/** The webhook group with every receiver in its own process (CPU per acknowledgement). */
export const WEBHOOK_CPU = 'webhook ack, receiver in its own process';
const ISOLATED_ACKS: ReadonlyArray<readonly [string, TargetName, string | ((n: number) => string)]> = [
  ['bare node:http 200', 'http-200', distinct],
  ['receiver, memory store, distinct events', 'receiver-memory', distinct],
  ['receiver, Redis store, distinct events (worker in the same process)', 'receiver-redis', distinct],
  ['receiver, Redis store, one event repeated', 'receiver-redis', duplicate],
  // Last: nothing processes what it queues.
  ['receiver, Redis store, distinct events, receive-only (process: false)', 'receiver-redis-receive-only', distinct],
];

/** The resume group's baseline: the card's stack as documented, nothing of ours. */
export const EXPRESS_VALIDATOR = 'express 5 + express-openapi-validator (public middleware, same spec and route)';
const EXPRESS_VALIDATOR_RESPONSES = 'express 5 + express-openapi-validator, responses validated';
const EXPRESS = 'bare express 5, same 409 JSON';
const NODE_HTTP = 'bare node:http, same 409 JSON';
const FASTIFY = 'fastify 5, schema-validated route';
/** The watch group's baseline: the server called directly. */
const WATCH_DIRECT = 'reference server, memory store (production defaults), called directly';

/** Sizes of the growth group (sessions in Redis); BENCH_GROWTH_MAX caps it (default 1 000 000). */
export function growthSizes(max: number): number[] {
  return [10_000, 100_000, 1_000_000].filter((n) => n <= max);
}

/** Every case of a run, in order; the first of each group is its baseline. */
export function listCases(redisUrl: string, growthMax = 1_000_000): CaseSpec[] {
  const resume = { path: `/v1/sessions/${BENCH_SESSION}/resume`, method: 'POST' as const, headers: resumeHeaders };
  const hook = { path: '/', method: 'POST' as const, headers: { 'content-type': 'application/json' } };
  // The card's stack as documented is the baseline: what we add must cost at most 10 % of it.
  const vs = { baseline: EXPRESS_VALIDATOR, compareWith: [EXPRESS, NODE_HTTP], interleaved: true };
  const production = { validateResponses: false };
  const growthBase = 'reference server, Redis, 1,000 sessions';
  // Every request asks for a different session among the n seeded (all running: 409).
  const spread = (n: number) => (i: number) => `/v1/sessions/bench_${(i * 7919) % n}/resume`;
  return [
    { group: 'resume', name: EXPRESS_VALIDATOR, ...vs, start: () => startExpressValidator(), isolated: { name: 'express-validator' }, ...resume },
    {
      group: 'resume',
      name: EXPRESS_VALIDATOR_RESPONSES,
      ...vs,
      start: () => startExpressValidator({ responses: true }),
      isolated: { name: 'express-validator-responses' },
      ...resume,
    },
    { group: 'resume', name: EXPRESS, ...vs, start: startBareExpress, isolated: { name: 'express' }, ...resume },
    { group: 'resume', name: NODE_HTTP, ...vs, start: startBareHttpResume, isolated: { name: 'http-resume' }, ...resume },
    { group: 'resume', name: FASTIFY, ...vs, start: startFastify, isolated: { name: 'fastify' }, ...resume },
    {
      group: 'resume',
      name: 'reference server, memory store, responses validated (tests)',
      ...vs,
      start: () => startMemoryReferenceServer(),
      isolated: { name: 'reference-memory' },
      ...resume,
    },
    {
      group: 'resume',
      name: 'reference server, memory store (production defaults)',
      ...vs,
      start: () => startMemoryReferenceServer(production),
      isolated: { name: 'reference-memory-unchecked' },
      ...resume,
    },
    {
      group: 'resume',
      name: 'reference server, memory store, rate limit on (production defaults)',
      ...vs,
      start: () => startMemoryReferenceServer({ ...production, rateLimit: { limit: 1e9, windowMs: 60_000 } }),
      isolated: { name: 'reference-memory-rate-limited' },
      ...resume,
    },
    {
      group: 'resume',
      name: 'reference server, Redis store (production defaults)',
      ...vs,
      start: () => startRedisReferenceServer(redisUrl, production),
      isolated: { name: 'reference-redis', redisUrl },
      ...resume,
    },
    {
      group: 'watch',
      name: WATCH_DIRECT,
      baseline: WATCH_DIRECT,
      interleaved: true,
      start: () => startMemoryReferenceServer(production),
      isolated: { name: 'reference-memory-unchecked' },
      ...resume,
    },
    {
      group: 'watch',
      name: 'the same server behind `watch` (proxy and every rule, same process)',
      baseline: WATCH_DIRECT,
      interleaved: true,
      start: () => startMemoryReferenceServer(production).then((server) => watchInFront(server)),
      isolated: { name: 'reference-memory-watched' },
      ...resume,
    },
    {
      group: 'watch',
      name: 'the same server behind `watch`’s proxy alone (no rule run)',
      baseline: WATCH_DIRECT,
      interleaved: true,
      start: () => startMemoryReferenceServer(production).then((server) => watchInFront(server, false)),
      isolated: { name: 'reference-memory-proxied' },
      ...resume,
    },
    ...[1_000, ...growthSizes(growthMax)].map((n) => ({
      group: 'growth',
      name: `reference server, Redis, ${n.toLocaleString('en-US')} sessions`,
      baseline: growthBase,
      prepare: () => fillRedisSessions(redisUrl, n),
      start: () => startRedisReferenceServer(redisUrl, production),
      isolated: { name: 'reference-redis' as const, redisUrl },
      ...resume,
      path: spread(n),
    })),
    { group: 'webhook ack', name: 'bare node:http 200', baseline: 'bare node:http 200', start: startBareHttp, ...hook, body: distinct },
    {
      group: 'webhook ack',
      name: 'receiver, memory store, distinct events',
      baseline: 'bare node:http 200',
      start: () => startReceiver('memory'),
      ...hook,
      body: distinct,
    },
    {
      group: 'webhook ack',
      name: 'receiver, Redis store, distinct events',
      baseline: 'bare node:http 200',
      start: () => startReceiver({ redisUrl }),
      ...hook,
      body: distinct,
    },
    {
      group: 'webhook ack',
      name: 'receiver, Redis store, one event repeated',
      baseline: 'bare node:http 200',
      start: () => startReceiver({ redisUrl }),
      ...hook,
      body: duplicate,
    },
    // The same receivers in their own processes, one after the other (they share the bench's
    // queue): CPU per acknowledgement of the receiver process alone (Redis and the load
    // generator are other processes).
    ...ISOLATED_ACKS.map(([name, target, body]) => ({
      group: WEBHOOK_CPU,
      name,
      baseline: ISOLATED_ACKS[0]![0],
      start: () => Promise.reject(new Error(`${name} runs in its own process only`)),
      isolated: { name: target, redisUrl },
      ...hook,
      body,
    })),
    ...listSandboxCases(),
  ];
}

/** The best of two loads: the least CPU per request when measured, else the most requests per second. */
function better(a: LoadResult | undefined, b: LoadResult): LoadResult {
  if (!a) return b;
  if (a.cpuMicrosPerRequest !== undefined && b.cpuMicrosPerRequest !== undefined) return b.cpuMicrosPerRequest < a.cpuMicrosPerRequest ? b : a;
  return b.requestsPerSec > a.requestsPerSec ? b : a;
}

/** Consecutive cases of one interleaved group form a block; every other case is a block of its own. */
function blocks(cases: CaseSpec[]): CaseSpec[][] {
  const out: CaseSpec[][] = [];
  for (const c of cases) {
    const last = out.at(-1);
    if (c.interleaved && last?.[0]?.interleaved && last[0].group === c.group) last.push(c);
    else out.push([c]);
  }
  return out;
}

function loadOf(c: CaseSpec, target: Target, connections: number) {
  const fixed = typeof c.path === 'string' ? c.path : c.path(0);
  return {
    url: `${target.url}${fixed}`,
    method: c.method,
    headers: c.headers ?? {},
    connections,
    ...(c.body ? { body: c.body } : {}),
    ...(typeof c.path === 'function' ? { path: c.path } : {}),
  };
}

/**
 * Runs `cases` block by block (bench/cases.ts `interleaved`): each case on a fresh target
 * warmed up for 1 s, then `rounds` measured loads (alternating within a block), keeping each
 * case's best; every target is stopped at the end of its block.
 */
export async function runCases(cases: CaseSpec[], options: Omit<BenchOptions, 'redisUrl'>): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const rounds = options.rounds ?? 1;
  for (const block of blocks(cases)) {
    const started: { c: CaseSpec; target: Target | IsolatedTarget; prepareSeconds: number | undefined; best?: LoadResult }[] = [];
    try {
      for (const c of block) {
        const prepareSeconds = await c.prepare?.();
        const target = options.isolate && c.isolated ? await startIsolated(c.isolated.name, c.isolated.redisUrl) : await c.start();
        started.push({ c, target, prepareSeconds });
      }
      for (const s of started) await runLoad({ ...loadOf(s.c, s.target, options.connections), durationS: 1 });
      for (let round = 0; round < rounds; round++) {
        // Alternate the order so that no case always follows the same one.
        for (const s of round % 2 ? [...started].reverse() : started) {
          const cpu = 'cpuMicros' in s.target ? s.target.cpuMicros.bind(s.target) : undefined;
          // From idle to idle: what earlier loads left (a receiver's worker behind) is not counted, what this one leaves is.
          const before = cpu ? await cpuUntilIdle(cpu) : undefined;
          const result = await runLoad({ ...loadOf(s.c, s.target, options.connections), durationS: options.durationS });
          if (cpu && before !== undefined) result.cpuMicrosPerRequest = ((await cpuUntilIdle(cpu)) - before) / Math.max(1, result.requests);
          s.best = better(s.best, result);
        }
      }
      for (const { c, prepareSeconds, best } of started) {
        results.push({
          group: c.group,
          name: c.name,
          baseline: c.baseline,
          ...(c.compareWith ? { compareWith: c.compareWith } : {}),
          ...(prepareSeconds === undefined ? {} : { prepareSeconds }),
          result: best!,
        });
      }
    } finally {
      for (const s of started) await s.target.stop();
    }
  }
  return results;
}
