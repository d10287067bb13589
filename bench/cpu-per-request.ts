/**
 * Server CPU per request, the measure that moves least on a shared box: each target runs in
 * its own process (bench/serve-target.ts), autocannon loads it from here, and the target's
 * user + system CPU time (/proc/<pid>/stat, Linux) is divided by the requests it answered.
 * `tsx bench/cpu-per-request.ts express reference-memory reference-memory-unchecked …`
 * (two alternating rounds of 3 s; printed, not written to BENCHMARKS.md).
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

const names = process.argv.slice(2) as TargetName[];
const unknown = names.find((n) => !TARGET_NAMES.includes(n));
if (!names.length || unknown) throw new Error(`usage: cpu-per-request.ts <${TARGET_NAMES.join('|')}>…`);
const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
for (let round = 0; round < 2; round++) {
  for (const name of names) {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('serve-target.ts', import.meta.url)), name], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const load = { url: `${line.toString().trim()}/v1/sessions/${BENCH_SESSION}/resume`, method: 'POST' as const, headers, connections: 10 };
    await runLoad({ ...load, durationS: 1 });
    const before = cpuMs(child.pid!);
    const r = await runLoad({ ...load, durationS: 3 });
    const us = ((cpuMs(child.pid!) - before) * 1000) / r.requests;
    process.stdout.write(`${name.padEnd(28)} ${r.requestsPerSec.toFixed(0).padStart(6)} req/s ${us.toFixed(0).padStart(5)} µs CPU/request (${r.non2xx} of ${r.requests} non-2xx)\n`);
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
