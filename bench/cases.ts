/**
 * The bench's cases: each one a load against a target, grouped with the baseline it is
 * compared to in the same run (speed claims are ratios, never absolute numbers).
 */
import type { SessionEvent } from '../spec/types.js';
import { runLoad, type LoadResult } from './run-case.js';
import { listSandboxCases } from './sandbox-cases.js';
import {
  BENCH_KEY,
  startBareExpress,
  startBareHttp,
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
  result: LoadResult;
}

/** One case: its group, name, baseline, how to start its target and what to send. */
export interface CaseSpec {
  group: string;
  name: string;
  baseline: string;
  start(): Promise<Target>;
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | ((n: number) => string);
}

const resumeHeaders = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const event = (id: string, timestamp: string): string =>
  JSON.stringify({ event: 'session.resumed', session: { id }, timestamp } satisfies SessionEvent);
const distinct = (n: number) => event(`bench_${process.pid}_${Date.now()}_${n}`, new Date().toISOString());
const duplicate = event('bench_duplicate', '2026-11-21T00:00:00.000Z');

/** Every case of a run, in order; the first of each group is its baseline. */
export function listCases(redisUrl: string): CaseSpec[] {
  const resume = { path: '/v1/sessions/bench_running/resume', method: 'POST' as const, headers: resumeHeaders };
  const hook = { path: '/', method: 'POST' as const, headers: { 'content-type': 'application/json' } };
  return [
    { group: 'resume', name: 'bare express, same 409 JSON', baseline: 'bare express, same 409 JSON', start: startBareExpress, ...resume },
    { group: 'resume', name: 'reference server, memory store', baseline: 'bare express, same 409 JSON', start: startMemoryReferenceServer, ...resume },
    { group: 'resume', name: 'reference server, Redis store', baseline: 'bare express, same 409 JSON', start: () => startRedisReferenceServer(redisUrl), ...resume },
    { group: 'webhook ack', name: 'bare node:http 200', baseline: 'bare node:http 200', start: startBareHttp, ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, memory store, distinct events', baseline: 'bare node:http 200', start: () => startReceiver('memory'), ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, Redis store, distinct events', baseline: 'bare node:http 200', start: () => startReceiver({ redisUrl }), ...hook, body: distinct },
    { group: 'webhook ack', name: 'receiver, Redis store, one event repeated', baseline: 'bare node:http 200', start: () => startReceiver({ redisUrl }), ...hook, body: duplicate },
    ...listSandboxCases(),
  ];
}

/** Runs `cases` one after the other (each on a fresh target, warmed up for 1 s), stopping every target. */
export async function runCases(cases: CaseSpec[], options: Omit<BenchOptions, 'redisUrl'>): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const target = await c.start();
    try {
      const load = { url: `${target.url}${c.path}`, method: c.method, headers: c.headers ?? {}, connections: options.connections, ...(c.body ? { body: c.body } : {}) };
      await runLoad({ ...load, durationS: 1 });
      results.push({ group: c.group, name: c.name, baseline: c.baseline, result: await runLoad({ ...load, durationS: options.durationS }) });
    } finally {
      await target.stop();
    }
  }
  return results;
}
