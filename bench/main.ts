/**
 * Entry of `npm run bench`: starts a private redis-server, runs every case (bench/cases.ts),
 * prints and writes BENCHMARKS.md. Bounded: 7 cases × (1 s warm-up + BENCH_DURATION_S).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { listCases, runCases, type BenchOptions } from './cases.js';
import { renderClusterSection, runClusterCases } from './cluster-cases.js';
import { renderReport } from './report.js';

/** Reads the bench settings: BENCH_DURATION_S (default 3, 1–30) and BENCH_CONNECTIONS (default 10, 1–200). */
function loadBenchOptions(env: NodeJS.ProcessEnv): Omit<BenchOptions, 'redisUrl'> {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
    return n;
  };
  return { durationS: int('BENCH_DURATION_S', 3, 1, 30), connections: int('BENCH_CONNECTIONS', 10, 1, 200) };
}

const options = loadBenchOptions(process.env);
const redis = await startRedisServer();
try {
  const results = await runCases(listCases(redis.url), options);
  const cluster = renderClusterSection(await runClusterCases({ ...options, seedSessions: Number(process.env.BENCH_SEED_SESSIONS || 1_000_000) }));
  const cpu = cpus();
  const report = renderReport(results, options, {
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown CPU',
    command: 'npm run bench',
  }) + `\n${cluster}`;
  writeFileSync(fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)), report);
  process.stdout.write(report);
} finally {
  await redis.stop();
}
