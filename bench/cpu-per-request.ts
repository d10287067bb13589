/**
 * Server CPU per request, the measure that moves least on a shared box: each target runs in
 * its own process (bench/serve-target.ts), autocannon loads it from here, and the target's
 * user + system CPU time (/proc/<pid>/stat, Linux) is divided by the requests it answered.
 * `tsx bench/cpu-per-request.ts express reference-memory reference-memory-unchecked …`
 * (alternating rounds of 3 s, BENCH_ROUNDS of them (default 2, 1–20), then each target's median
 * and its ratio to the first target's; printed, not written to BENCHMARKS.md). A target may be
 * `name@dir`: bench/serve-target.ts of another tree of this repository (a before/after run).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runLoad } from './run-case.js';
import { BENCH_KEY, BENCH_SESSION, TARGET_NAMES, type TargetName } from './targets.js';

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux.
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
};

const targets = process.argv.slice(2);
const unknown = targets.find((t) => !TARGET_NAMES.includes(t.split('@')[0] as TargetName));
if (!targets.length || unknown) throw new Error(`usage: cpu-per-request.ts <${TARGET_NAMES.join('|')}>[@dir]…`);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error('BENCH_ROUNDS must be a whole number from 1 to 20.');
const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const script = (dir: string | undefined) => (dir ? `${dir}/bench/serve-target.ts` : fileURLToPath(new URL('serve-target.ts', import.meta.url)));
const samples = new Map<string, number[]>(targets.map((t) => [t, []]));
for (let round = 0; round < rounds; round++) {
  for (const target of targets) {
    const [name, dir] = target.split('@') as [TargetName, string | undefined];
    const child = spawn(process.execPath, ['--import', 'tsx', script(dir), name], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const load = { url: `${line.toString().trim()}/v1/sessions/${BENCH_SESSION}/resume`, method: 'POST' as const, headers, connections: 10 };
    await runLoad({ ...load, durationS: 1 });
    const before = cpuMs(child.pid!);
    const r = await runLoad({ ...load, durationS: 3 });
    const us = ((cpuMs(child.pid!) - before) * 1000) / r.requests;
    samples.get(target)!.push(us);
    process.stdout.write(
      `${target.padEnd(28)} ${r.requestsPerSec.toFixed(0).padStart(6)} req/s ${us.toFixed(0).padStart(5)} µs CPU/request (${r.non2xx} of ${r.requests} non-2xx)\n`,
    );
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const first = median(samples.get(targets[0]!)!);
for (const [target, values] of samples) {
  const us = median(values);
  process.stdout.write(`median ${target.padEnd(28)} ${us.toFixed(0).padStart(5)} µs CPU/request  ${(first / us).toFixed(2)}× ${targets[0]} (CPU)\n`);
}
