/**
 * CPU profile of one target under the resume load: `tsx bench/profile.ts <target> [seconds]`
 * (a bench target, or `npm-start` / `card-stack`: the two servers as users start them, bench/as-started.ts)
 * starts bench/serve-target.ts under `node --cpu-prof`, loads it with autocannon (in this
 * process; receivers get session events, distinct or with BENCH_EVENTS=duplicate one repeated),
 * stops it and prints the flame summary (bench/profile-summary.ts). Profiles land in
 * .bench-profiles/ (git-ignored).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { runLoad } from './run-case.js';
import { summarise } from './profile-summary.js';
import { BENCH_KEY, BENCH_SESSION, TARGET_NAMES, type TargetName } from './targets.js';
import { resumeUrlOf, startAsStarted, stop } from './as-started.js';

// Besides the bench targets, the two servers as users start them (bench/as-started.ts).
const AS_STARTED = ['npm-start', 'card-stack'] as const;
const name = process.argv[2] as TargetName | (typeof AS_STARTED)[number];
const seconds = Number(process.argv[3] ?? 5);
if (!TARGET_NAMES.includes(name as TargetName) && !AS_STARTED.includes(name as (typeof AS_STARTED)[number])) {
  throw new Error(`usage: profile.ts <${[...TARGET_NAMES, ...AS_STARTED].join('|')}> [seconds]`);
}
const dir = fileURLToPath(new URL(`../.bench-profiles/${name}-${Date.now()}/`, import.meta.url));
mkdirSync(dir, { recursive: true });
const profileArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
const asStarted = name === 'npm-start' || name === 'card-stack' ? await startAsStarted(name, profileArgs) : undefined;
const child =
  asStarted?.child ??
  spawn(process.execPath, [...profileArgs, '--import', 'tsx', fileURLToPath(new URL('serve-target.ts', import.meta.url)), name, ...process.argv.slice(4)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
const url = asStarted?.url ?? ((await once(child.stdout!, 'data')) as [Buffer])[0].toString().trim();
const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
// Receivers get session events: distinct ones, or one repeated with BENCH_EVENTS=duplicate.
const event = (id: string, timestamp: string) => JSON.stringify({ event: 'session.resumed', session: { id }, timestamp });
const receiverLoad = {
  url: `${url}/`,
  headers: { 'content-type': 'application/json' },
  body:
    process.env.BENCH_EVENTS === 'duplicate'
      ? event('profile_duplicate', '2026-11-21T00:00:00.000Z')
      : (n: number) => event(`profile_${Date.now()}_${n}`, new Date().toISOString()),
};
const load = name.startsWith('receiver') ? receiverLoad : { url: asStarted ? resumeUrlOf(asStarted) : `${url}/v1/sessions/${BENCH_SESSION}/resume`, headers };
const result = await runLoad({ ...load, method: 'POST', durationS: seconds, connections: 10 });
if (asStarted) await stop(asStarted);
else {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
const { total, frames, packages } = summarise(JSON.parse(readFileSync(dir + file, 'utf8')), seconds * 1000);
const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)} %`;
process.stdout.write(`${name}: ${result.requestsPerSec.toFixed(0)} req/s, busy ${total.toFixed(0)} ms, ${dir}${file}\n\nby package:\n`);
for (const [p, ms] of packages.slice(0, 12)) process.stdout.write(`${pct(ms)}  ${p}\n`);
process.stdout.write('\ntop self-time frames:\n');
for (const [f, ms] of frames.slice(0, 30)) process.stdout.write(`${pct(ms)}  ${f}\n`);
