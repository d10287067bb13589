/**
 * CPU profile of the built sandbox (`node server/dist/main.js --sandbox`, as `npm run sandbox`
 * starts it) under the resume load of the "mock vs sandbox" rows:
 * `tsx bench/profile-sandbox.ts [seconds=6] [LOG_LEVEL]`. Prints the requests per second, the
 * server's CPU time per request (from /proc, so the load generator's share is left out) and the
 * flame summary (bench/profile-summary.ts). Profiles land in .bench-profiles/ (git-ignored).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '../test/helpers/free-port.js';
import { buildServerForBench, firstAnswer, RESUME_PATH, SANDBOX_LAUNCHER, spawnServer, stopProcess } from './cold-start.js';
import { summarise } from './profile-summary.js';
import { runLoad } from './run-case.js';

const seconds = Number(process.argv[2] ?? 6);
const logLevel = process.argv[3];
const dir = fileURLToPath(new URL(`../.bench-profiles/sandbox-${Date.now()}/`, import.meta.url));
mkdirSync(dir, { recursive: true });
buildServerForBench();
const port = await getFreePort();
const launcher = { ...SANDBOX_LAUNCHER, args: (p: number) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...SANDBOX_LAUNCHER.args(p)] };
const proc = spawnServer(launcher, port, logLevel ? { LOG_LEVEL: logLevel } : {});
const url = `http://127.0.0.1:${port}${RESUME_PATH}`;
await firstAnswer(url, SANDBOX_LAUNCHER.key, performance.now());

/** User plus system CPU of the server so far, in ms (clock ticks of 10 ms). */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const before = cpuMs();
const result = await runLoad({ url, method: 'POST', headers: { authorization: `Bearer ${SANDBOX_LAUNCHER.key}` }, durationS: seconds, connections: 10 });
const cpu = cpuMs() - before;
await stopProcess(proc);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
const { total, frames, packages } = summarise(JSON.parse(readFileSync(dir + file, 'utf8')), seconds * 1000);
const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)} %`;
process.stdout.write(
  `sandbox: ${result.requestsPerSec.toFixed(0)} req/s, ${((cpu * 1000) / result.requests).toFixed(0)} µs CPU per request, ${dir}${file}\n\nby package:\n`,
);
for (const [p, ms] of packages.slice(0, 12)) process.stdout.write(`${pct(ms)}  ${p}\n`);
process.stdout.write('\ntop self-time frames:\n');
for (const [f, ms] of frames.slice(0, 30)) process.stdout.write(`${pct(ms)}  ${f}\n`);
