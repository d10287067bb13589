/**
 * CPU profile of Redis-mode delivering instances in the steady row of the delivery group:
 * `tsx bench/profile-delivery.ts [events=3000] [instances=1]` starts a private redis-server and
 * the receiver, runs the instances under `node --cpu-prof` (bench/delivery-cases.ts), and
 * prints each instance's flame summary over the load window (bench/profile-summary.ts). Profiles land in
 * .bench-profiles/ (git-ignored).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { runSteadyRow } from './delivery-cases.js';
import { summarise } from './profile-summary.js';

const events = Number(process.argv[2] ?? 3000);
const count = Number(process.argv[3] ?? 1);
const dir = fileURLToPath(new URL(`../.bench-profiles/delivery-${Date.now()}/`, import.meta.url));
mkdirSync(dir, { recursive: true });
const redis = await startRedisServer();
try {
  const row = await runSteadyRow({ redisUrl: redis.url, events, backlog: 0, profileDir: dir }, count);
  process.stdout.write(`${row.name}: ${row.rate.toFixed(0)} events/s, ${dir}\n`);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    // The load window only (start-up excluded): the row's events at its rate, plus the stop.
    const { total, frames, packages } = summarise(JSON.parse(readFileSync(dir + file, 'utf8')), (events / row.rate) * 1000 + 500);
    const pct = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)} %`;
    process.stdout.write(`\n${file}: busy ${total.toFixed(0)} ms\n\nby package:\n`);
    for (const [p, ms] of packages.slice(0, 12)) process.stdout.write(`${pct(ms)}  ${p}\n`);
    process.stdout.write('\ntop self-time frames:\n');
    for (const [f, ms] of frames.slice(0, 25)) process.stdout.write(`${pct(ms)}  ${f}\n`);
  }
} finally {
  await redis.stop();
}
