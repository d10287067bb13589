import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { runLoad } from './run-case.js';
import { BENCH_KEY, BENCH_SESSION } from './targets.js';
const names = process.argv.slice(2);
const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
for (let round = 0; round < 2; round++) for (const spec of names) {
  const [name, env] = spec.split(':');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/serve-target.ts', name!], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, EXP: env ?? '' } });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const load = { url: `${line.toString().trim()}/v1/sessions/${BENCH_SESSION}/resume`, method: 'POST' as const, headers, connections: 10 };
  await runLoad({ ...load, durationS: 1 });
  const c0 = cpu(child.pid!);
  const r = await runLoad({ ...load, durationS: 3 });
  const us = ((cpu(child.pid!) - c0) * 1000) / r.requests;
  console.log(spec.padEnd(40), r.requestsPerSec.toFixed(0).padStart(6), 'req/s', us.toFixed(0).padStart(5), 'µs CPU/req', 'non2xx', r.non2xx, 'of', r.requests);
  child.kill('SIGTERM'); await once(child, 'exit');
}
