/**
 * The resume path as users see it: the reference server started as `npm start` starts it
 * (`node server/dist/main.js`, memory store, every setting at its default: responses validated,
 * one access-log line per request on stdout) against the card's stack started as its users start
 * it (bench/card-stack.mjs under plain node: express 5 + express-openapi-validator validating
 * requests and responses on the same spec and route). Each in its own process; all start first,
 * each is warmed for 1 s, then `rounds` loads of `durationS` each, alternating their order round
 * after round; per target the median req/s and µs CPU per request (the process's user + system
 * time from /proc, Linux), their spread (min–max) and the ratio of medians to the card's stack.
 *
 * `tsx bench/as-started.ts [label=path/to/server/dist/main.js[?NAME=value&…] …]` runs it alone
 * (BENCH_ROUNDS, default 5; BENCH_DURATION_S, default 3): each extra argument is another build of
 * the server, or the same with other settings, in the same run (a before/after comparison).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { specPath } from '@session-resume-api/runtime/contract';
import { runLoad, type LoadResult } from './run-case.js';
import { BENCH_KEY } from './targets.js';

/** The card's stack, the section's baseline. */
export const CARD_STACK = 'express 5 + express-openapi-validator, requests and responses validated (node bench/card-stack.mjs)';
/** The reference server as `npm start` runs it. */
export const NPM_START = 'reference server, `npm start` (node server/dist/main.js, memory store, defaults)';
/** The one running session of the demo set `npm start` seeds: the steady state is 409 not_paused. */
const RUNNING_DEMO_SESSION = 'sess_running_1';

const root = fileURLToPath(new URL('../', import.meta.url));
const CLOCK_TICK_MICROS = 10_000; // USER_HZ is 100 on Linux.

/** A server in a process of its own, as its users start it. */
export interface Started {
  name: string;
  url: string;
  child: ChildProcess;
}

/** User + system CPU of `pid` so far, in µs (/proc/<pid>/stat, fields 14 and 15). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MICROS;
}

/** The first line of `child`'s stdout that `pick` maps to a URL; later lines are read and dropped, as a terminal or log shipper would. */
async function urlOf(child: ChildProcess, pick: (line: string) => string | undefined): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => Promise.reject(new Error(`exited with ${String(code)} before listening`)));
  const found = new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      const url = pick(line);
      if (url) resolve(url);
    });
  });
  // A server whose log level hides the `listening` line never says where it is.
  const late = new Promise<never>((_resolve, reject) =>
    setTimeout(() => reject(new Error('no URL on stdout within 60 s (a LOG_LEVEL above info hides it)')), 60_000).unref(),
  );
  return Promise.race([found, exited, late]);
}

/** Spawns `node args`, under `launcher` when given (bench/instructions.ts: valgrind). */
function spawnNode(args: string[], env: NodeJS.ProcessEnv | undefined, launcher: readonly string[]): ChildProcess {
  const [command, ...prefix] = launcher.length ? [...launcher, process.execPath] : [process.execPath];
  return spawn(command!, [...prefix, ...args], { cwd: root, ...(env ? { env } : {}), stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The reference server at `main` (a server/dist/main.js) with the environment `npm start` would see: only the key and a free port set. */
export async function startNpmStart(
  name: string,
  main: string,
  nodeArgs: string[] = [],
  settings: Record<string, string> = {},
  launcher: readonly string[] = [],
): Promise<Started> {
  const { PATH, HOME } = process.env;
  const env = { ...(PATH ? { PATH } : {}), ...(HOME ? { HOME } : {}), ...settings, API_KEYS: BENCH_KEY, PORT: '0' };
  const child = spawnNode([...nodeArgs, main], env, launcher);
  const url = await urlOf(child, (line) => {
    const parsed = line.startsWith('{') ? (JSON.parse(line) as { msg?: string; url?: string }) : {};
    return parsed.msg === 'listening' ? parsed.url : undefined;
  });
  return { name, url, child };
}

/** The card's stack (bench/card-stack.mjs) under plain node. */
export async function startCardStack(nodeArgs: string[] = [], launcher: readonly string[] = []): Promise<Started> {
  const child = spawnNode([...nodeArgs, fileURLToPath(new URL('card-stack.mjs', import.meta.url)), specPath, BENCH_KEY], undefined, launcher);
  return { name: CARD_STACK, url: await urlOf(child, (line) => (line.startsWith('http') ? line : undefined)), child };
}

/** This tree's server build, as `npm start` runs it. */
export const THIS_BUILD = fileURLToPath(new URL('../server/dist/main.js', import.meta.url));

/** The resume URL every load asks (the demo set's running session). */
export const resumeUrlOf = (target: Started): string => `${target.url}/v1/sessions/${RUNNING_DEMO_SESSION}/resume`;

/** The headers of every resume the benches send. */
export const RESUME_HEADERS = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' } as const;

/** Starts the card's stack or `npm start`'s server of this tree, with `nodeArgs` (bench/profile.ts: `--cpu-prof`). */
export function startAsStarted(kind: 'card-stack' | 'npm-start', nodeArgs: string[] = []): Promise<Started> {
  return kind === 'card-stack' ? startCardStack(nodeArgs) : startNpmStart(NPM_START, THIS_BUILD, nodeArgs);
}

/** Stops a server started here (SIGTERM; both exit 0, so `--cpu-prof` writes its profile). */
export async function stop({ child }: Started): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** One target's samples, one per round. */
export interface AsStartedRow {
  name: string;
  requestsPerSec: number[];
  cpuMicrosPerRequest: number[];
  /** Non-409 answers over all rounds (the steady state is 409 not_paused). */
  unexpected: number;
}

/** Settings of the section: rounds, seconds per load, connections, and other builds of the server. */
export interface AsStartedOptions {
  rounds: number;
  durationS: number;
  connections: number;
  /** Other server/dist/main.js builds loaded in the same run, by label (a before/after). */
  others?: ReadonlyArray<{ label: string; main: string; env?: Record<string, string> }>;
}

async function measure(target: Started, durationS: number, connections: number): Promise<{ result: LoadResult; cpu: number }> {
  const before = cpuMicros(target.child.pid!);
  const result = await runLoad({ url: resumeUrlOf(target), method: 'POST', headers: RESUME_HEADERS, connections, durationS });
  return { result, cpu: (cpuMicros(target.child.pid!) - before) / Math.max(1, result.requests) };
}

/** Runs the section; the card's stack is the first row. */
export async function runAsStarted(options: AsStartedOptions): Promise<AsStartedRow[]> {
  const started: Started[] = [];
  try {
    started.push(await startAsStarted('card-stack'), await startAsStarted('npm-start'));
    for (const other of options.others ?? []) started.push(await startNpmStart(other.label, other.main, [], other.env));
    const rows = started.map((s): AsStartedRow => ({ name: s.name, requestsPerSec: [], cpuMicrosPerRequest: [], unexpected: 0 }));
    for (const s of started) await measure(s, 1, options.connections);
    for (let round = 0; round < options.rounds; round++) {
      const order = started.map((s, i) => [s, rows[i]!] as const);
      for (const [s, row] of round % 2 ? order.reverse() : order) {
        const { result, cpu } = await measure(s, options.durationS, options.connections);
        row.requestsPerSec.push(result.requestsPerSec);
        row.cpuMicrosPerRequest.push(cpu);
        // Every answer is 409: autocannon counts it among non-2xx; anything else is an error or a timeout.
        row.unexpected += result.requests - result.non2xx + result.errors + result.timeouts;
      }
    }
    return rows;
  } finally {
    for (const s of started) await stop(s);
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const spread = (values: number[]) => `${int(Math.min(...values))}–${int(Math.max(...values))}`;

/** The section in BENCHMARKS.md: medians, spread, and ratios of medians to the card's stack (req/s, and CPU: its µs ÷ the row's). */
export function renderAsStarted(rows: AsStartedRow[], options: AsStartedOptions): string {
  const base = rows[0]!;
  const rps = median(base.requestsPerSec);
  const cpu = median(base.cpuMicrosPerRequest);
  const perRound = (row: AsStartedRow) => row.requestsPerSec.map((r, i) => r / base.requestsPerSec[i]!);
  const lines = [
    '## resume, as users start them',
    '',
    `Each server in its own process, started as its users start it; ${options.rounds} alternating rounds of ${options.durationS} s by autocannon with ${options.connections} connections`,
    `after 1 s of warm-up each; medians, spread min–max. Method and command: the header of bench/as-started.ts.`,
    '',
    '| case | req/s (median) | req/s spread | × card (req/s) | × card per round | µs CPU/req (median) | µs spread | × card (CPU) | not 409 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const ratios = perRound(row);
    const isBase = row === base;
    lines.push(
      `| ${row.name} | ${int(median(row.requestsPerSec))} | ${spread(row.requestsPerSec)} | ${isBase ? 'baseline' : `${(median(row.requestsPerSec) / rps).toFixed(2)}×`} | ${isBase ? '—' : `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`} | ${int(median(row.cpuMicrosPerRequest))} | ${spread(row.cpuMicrosPerRequest)} | ${isBase ? 'baseline' : `${(cpu / median(row.cpuMicrosPerRequest)).toFixed(2)}×`} | ${row.unexpected} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const whole = (name: string, fallback: number, max: number) => {
    const n = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be a whole number from 1 to ${max}.`);
    return n;
  };
  const others = process.argv.slice(2).map((arg) => {
    const at = arg.indexOf('=');
    const [main, query] = arg.slice(at + 1).split('?');
    if (at < 1 || !main) throw new Error(`usage: as-started.ts [label=path/to/server/dist/main.js[?NAME=value&…] …], got "${arg}"`);
    return { label: arg.slice(0, at), main, env: Object.fromEntries(new URLSearchParams(query ?? '')) };
  });
  const options = { rounds: whole('BENCH_ROUNDS', 5, 20), durationS: whole('BENCH_DURATION_S', 3, 30), connections: 10, others };
  process.stdout.write(renderAsStarted(await runAsStarted(options), options));
}
