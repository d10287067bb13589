/**
 * The client cases, in this one process: `client.resume()` against plain `fetch`, fetch with
 * a per-call AbortController and timer, and openapi-fetch alone, sequential and 20 calls in
 * flight, all against one node:http server in a child process answering 200 with a
 * ResumeResult (so the server's cost is not on this process's cores).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import createClient from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { createSessionsClient } from '../client/index.js';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import { BENCH_KEY } from './targets.js';

/** One measured client row: calls per second of a variant at a concurrency. */
export interface ClientResult {
  group: string;
  name: string;
  baseline: string;
  callsPerSec: number;
  calls: number;
  /** This process's CPU time per call, in µs (the server runs in another process). */
  cpuMicrosPerCall: number;
}

type Call = () => Promise<unknown>;

interface Measured {
  perSec: number;
  calls: number;
  cpuPerCall: number;
}

/** Calls `call` with `inFlight` loops for `ms`; resolves with calls per second and CPU µs per call. */
async function measure(call: Call, inFlight: number, ms: number): Promise<Measured> {
  let calls = 0;
  const end = performance.now() + ms;
  const loop = async () => {
    while (performance.now() < end) {
      await call();
      calls++;
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, loop));
  const { user, system } = process.cpuUsage(cpu);
  return { perSec: calls / ((performance.now() - started) / 1000), calls, cpuPerCall: (user + system) / Math.max(1, calls) };
}

function variants(baseUrl: string): [string, Call][] {
  const url = `${baseUrl}/v1/sessions/s1/resume`;
  const headers = { authorization: `Bearer ${BENCH_KEY}`, 'user-agent': 'bench' };
  const raw = createClient<paths>({ baseUrl, headers });
  const client = createSessionsClient({ baseUrl, apiKey: BENCH_KEY });
  return [
    ['plain fetch', async () => (await fetch(url, { method: 'POST', headers })).json()],
    [
      'fetch + AbortController + timer',
      async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 10_000);
        try {
          return await (await fetch(url, { method: 'POST', headers, signal: controller.signal })).json();
        } finally {
          clearTimeout(timer);
        }
      },
    ],
    ['openapi-fetch alone', () => raw.POST(RESUME_PATH, { params: { path: { session_id: 's1' } } })],
    ['client.resume()', () => client.resume('s1')],
  ];
}

/**
 * Runs every variant sequentially and with 20 in flight, each `seconds` long after a short
 * warm-up, `rounds` times in alternating order; keeps each variant's round with the least CPU
 * per call (the box is shared: CPU per call moves far less than calls per second).
 */
export async function runClientCases(seconds: number, rounds = 2): Promise<ClientResult[]> {
  const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('serve-target.ts', import.meta.url)), 'http-resumed'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(server.stdout, 'data')) as [Buffer];
    const all = variants(line.toString().trim());
    const results: ClientResult[] = [];
    for (const inFlight of [1, 20]) {
      const group = inFlight === 1 ? 'client, sequential' : 'client, 20 in flight';
      const best = new Map<string, Measured>();
      for (let round = 0; round < rounds; round++) {
        for (const [name, call] of round % 2 ? [...all].reverse() : all) {
          await measure(call, inFlight, 300);
          const m = await measure(call, inFlight, seconds * 500);
          // The least CPU per call: the round least disturbed by other work on the box.
          if (m.cpuPerCall < (best.get(name)?.cpuPerCall ?? Infinity)) best.set(name, m);
        }
      }
      for (const [name] of all) {
        const m = best.get(name)!;
        results.push({ group, name, baseline: 'plain fetch', callsPerSec: m.perSec, calls: m.calls, cpuMicrosPerCall: m.cpuPerCall });
      }
    }
    return results;
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
}
