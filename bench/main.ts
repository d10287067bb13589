/**
 * Entry of `npm run bench`: starts a private redis-server, runs every group (load cases in
 * bench/cases.ts, client cases in bench/client-cases.ts, cold starts in bench/cold-start.ts, the resume path as
 * users start it in bench/as-started.ts with the resume group),
 * prints and writes BENCHMARKS.md with bench/findings.md (the profile findings) appended.
 * Bounded: about 3 minutes with the defaults on 2 cores.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { listCases, runCases, type BenchOptions } from './cases.js';
import { runClientCases } from './client-cases.js';
import { measureStartups, renderStartups } from './cold-start.js';
import { renderClusterSection, runClusterCases } from './cluster-cases.js';
import { renderReport, type ExtraResults } from './report.js';
import { DRAIN_FROM, DRAIN_WARM_EVENTS, runDeliveryCases } from './delivery-cases.js';
import { runFootprintSection } from './footprint-section.js';
import { renderRecovery, runRecoveryBench } from './recovery.js';
import { renderAsStarted, runAsStarted } from './as-started.js';

const GROUPS = ['resume', 'watch', 'growth', 'webhook', 'sandbox', 'client', 'start', 'cluster', 'delivery', 'recovery', 'footprint'] as const;

interface RunSettings extends Omit<BenchOptions, 'redisUrl'> {
  growthMax: number;
  delivery: { events: number; backlog: number; profileDir?: string };
  recoveryEvents: number;
  recoveryFull: boolean;
  only: ReadonlySet<string>;
}

/**
 * Reads the bench settings: BENCH_DURATION_S (default 1, 1–30), BENCH_ROUNDS (loads per case,
 * the best kept; default 5, 1–10), BENCH_CONNECTIONS (default 10,
 * 1–200), BENCH_GROWTH_MAX (largest Redis size of the growth group, default 1 000 000) and
 * BENCH_ONLY (comma-separated groups among resume, watch, growth, webhook, sandbox, client, start, cluster, delivery, footprint; default all),
 * BENCH_DELIVERY_EVENTS (events per delivery row, default 3000, 500–100 000), BENCH_DELIVERY_BACKLOG (the delivery
 * group's large backlog, default 100 000, 50 000–1 000 000) and BENCH_DELIVERY_PROFILE (a directory: CPU profiles of the
 * delivering instances land there) and BENCH_RECOVERY_EVENTS (events per row of the recovery group, bench/recovery.ts,
 * default 5000, 500–100 000) and BENCH_RECOVERY_FULL (1: the recovery group adds the 4-minute outage with the contract's
 * full backlog held, maxHeldEvents, beside the drain lint:spec counts for it; minutes more; default 0).
 */
function loadBenchOptions(env: NodeJS.ProcessEnv): RunSettings {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
    return n;
  };
  const only = (env.BENCH_ONLY ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const unknown = only.find((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown) throw new Error(`BENCH_ONLY lists "${unknown}"; the groups are ${GROUPS.join(', ')}.`);
  return {
    durationS: int('BENCH_DURATION_S', 1, 1, 30),
    rounds: int('BENCH_ROUNDS', 5, 1, 10),
    connections: int('BENCH_CONNECTIONS', 10, 1, 200),
    growthMax: int('BENCH_GROWTH_MAX', 1_000_000, 10_000, 1_000_000),
    recoveryEvents: int('BENCH_RECOVERY_EVENTS', 5000, 500, 100_000),
    recoveryFull: int('BENCH_RECOVERY_FULL', 0, 0, 1) === 1,
    only: new Set(only.length ? only : GROUPS),
    delivery: {
      events: int('BENCH_DELIVERY_EVENTS', 3000, 500, 100_000),
      backlog: int('BENCH_DELIVERY_BACKLOG', 100_000, 50_000, 1_000_000),
      ...(env.BENCH_DELIVERY_PROFILE ? { profileDir: env.BENCH_DELIVERY_PROFILE } : {}),
    },
  };
}

const settings = loadBenchOptions(process.env);
const redis = await startRedisServer();
try {
  const options = { durationS: settings.durationS, connections: settings.connections, rounds: settings.rounds, isolate: true };
  const group = (name: string) => (name.startsWith('webhook ack') ? 'webhook' : name.startsWith('mock vs sandbox') ? 'sandbox' : name);
  const cases = listCases(redis.url, settings.growthMax).filter((c) => settings.only.has(group(c.group)));
  const results = await runCases(cases, options);
  // The resume group's headline: both servers as users start them (bench/as-started.ts), alternating rounds, medians.
  const asStartedOptions = { rounds: settings.rounds ?? 5, durationS: Math.max(3, settings.durationS), connections: settings.connections };
  const asStarted = settings.only.has('resume') ? `${renderAsStarted(await runAsStarted(asStartedOptions), asStartedOptions)}\n` : '';
  const extra: ExtraResults = {
    ...(settings.only.has('client') ? { client: await runClientCases(settings.durationS, settings.rounds) } : {}),
    // The Redis Cluster group (bench/cluster-cases.ts) goes before the findings.
    ...(settings.only.has('delivery')
      ? {
          delivery: {
            rows: await runDeliveryCases({ redisUrl: redis.url, ...settings.delivery }),
            events: settings.delivery.events,
            drain: { warmEvents: DRAIN_WARM_EVENTS, from: DRAIN_FROM },
          },
        }
      : {}),
    appendix: `${asStarted}${settings.only.has('recovery') ? `## Recovery after an outage\n\n${renderRecovery(await runRecoveryBench(redis.url, settings.recoveryEvents, { full: settings.recoveryFull }), settings.recoveryEvents)}\n` : ''}${settings.only.has('cluster') ? `${renderClusterSection(await runClusterCases({ ...options, seedSessions: settings.growthMax }))}\n` : ''}${settings.only.has('footprint') ? `${await runFootprintSection()}\n` : ''}${readFileSync(fileURLToPath(new URL('findings.md', import.meta.url)), 'utf8')}`,
  };
  const cpu = cpus();
  const command = `${settings.only.size < GROUPS.length ? `BENCH_ONLY=${[...settings.only].join(',')} ` : ''}npm run bench`;
  const report = renderReport(
    results,
    options,
    {
      date: new Date().toISOString(),
      node: process.versions.node,
      cpus: cpu.length,
      cpuModel: cpu[0]?.model.trim() ?? 'unknown CPU',
      command,
    },
    extra,
  );
  // Server and sandbox start to first answer, each against Prism in the same run (groups start, sandbox).
  const starts = settings.only.has('start') || settings.only.has('sandbox') ? `\n${renderStartups(await measureStartups())}` : '';
  const full = `${report}${starts}`;
  writeFileSync(fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)), full);
  process.stdout.write(full);
} finally {
  await redis.stop();
}
