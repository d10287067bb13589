/**
 * Start to first answer: spawns each server as a developer starts it and
 * times spawn → the first HTTP answer to `POST /v1/sessions/…/resume` with a bearer key, polled
 * every 10 ms (an answer there means the validator has compiled what the route needs; /healthz
 * would not). The reference server and its sandbox as `npm start` / `npm run sandbox` and the
 * published bin run them (server/dist/main.js, built by .ci/build.mjs) and from their TypeScript
 * sources, against Prism's mock and a bare node:http floor, all in one run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '../test/helpers/free-port.js';
import { BENCH_KEY } from './targets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const prismBin = `${root}node_modules/.bin/prism`;
const bundle = `${root}server/dist/main.js`;
/** The key the sandbox rows send (any `sandbox_` token is valid there). */
export const SANDBOX_KEY = 'sandbox_bench';
/** The resume route every start row and the sandbox throughput rows call. */
export const RESUME_PATH = '/v1/sessions/sess_running_1/resume';

/** How to start one server, and the key its resume route accepts. */
export interface Launcher {
  name: string;
  command: string;
  args: (port: number) => string[];
  env?: Record<string, string>;
  key: string;
}

const server = { env: { API_KEYS: BENCH_KEY }, key: BENCH_KEY };
const sandbox = { key: SANDBOX_KEY };

/** Prism's mock with its defaults: the baseline of the start table and of the sandbox throughput rows. */
export const PRISM_LAUNCHER: Launcher = {
  name: 'Prism 5.14.2 mock, defaults',
  command: prismBin,
  args: (port) => ['mock', `${root}spec/openapi.yaml`, '--host', '127.0.0.1', '--port', String(port)],
  key: 'any',
};
/** The built sandbox, what `npm run sandbox` runs after its build check. */
export const SANDBOX_LAUNCHER: Launcher = {
  name: 'sandbox, node server/dist/main.js --sandbox',
  command: process.execPath,
  args: () => [bundle, '--sandbox'],
  ...sandbox,
};

/** Every start of the table, Prism first: the baseline of each ratio. */
export const START_LAUNCHERS: readonly Launcher[] = [
  PRISM_LAUNCHER,
  { name: 'npm run mock (Prism through tsx)', command: 'npm', args: () => ['run', 'mock', '--silent'], key: 'any' },
  {
    name: 'bare node:http (the floor)',
    command: process.execPath,
    args: (port) => ['-e', `require('http').createServer((q,s)=>s.end()).listen(${port},'127.0.0.1')`],
    key: 'any',
  },
  { name: 'server, npm start (build check, then node server/dist/main.js)', command: 'npm', args: () => ['start', '--silent'], ...server },
  { name: 'server, node server/dist/main.js (the published bin)', command: process.execPath, args: () => [bundle], ...server },
  {
    name: 'server, node server/dist/main.js, NODE_ENV=production',
    command: process.execPath,
    args: () => [bundle],
    env: { ...server.env, NODE_ENV: 'production' },
    key: server.key,
  },
  {
    name: 'server from the TypeScript sources (node --import tsx server/main.ts)',
    command: process.execPath,
    args: () => ['--import', 'tsx', 'server/main.ts'],
    ...server,
  },
  {
    name: 'sandbox, npm run sandbox (build check, then node server/dist/main.js --sandbox)',
    command: 'npm',
    args: () => ['run', 'sandbox', '--silent'],
    ...sandbox,
  },
  SANDBOX_LAUNCHER,
  {
    name: 'sandbox from the TypeScript sources (node --import tsx server/main.ts --sandbox)',
    command: process.execPath,
    args: () => ['--import', 'tsx', 'server/main.ts', '--sandbox'],
    ...sandbox,
  },
];

/** One start-to-first-answer row: the fastest and the median run, and every run, in ms. */
export interface StartupResult {
  name: string;
  minMs: number;
  medianMs: number;
  runsMs: number[];
}

/** Builds the packages when a source is newer than the build, as `npm start` does first. */
export function buildServerForBench(): void {
  execFileSync(process.execPath, [`${root}.ci/build.mjs`, '--if-stale', '--quiet'], { cwd: root, stdio: 'ignore' });
}

/** Starts `launcher` on `port` in a process group of its own, with `env` over the launcher's. */
export function spawnServer(launcher: Launcher, port: number, env: Record<string, string> = {}): ChildProcess {
  return spawn(launcher.command, launcher.args(port), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), SANDBOX_PORT: String(port), HOST: '127.0.0.1', ...launcher.env, ...env },
    // Output is drained, not kept: logging costs what it costs by default, but never blocks on a full pipe.
    stdio: 'ignore',
    // npm and tsx start children of their own: the whole group is stopped.
    detached: true,
  });
}

/** Stops a server started by `spawnServer` (its whole group) and waits for its exit. */
export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || !proc.pid) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  process.kill(-proc.pid, 'SIGTERM');
  await exited;
}

/** Polls the resume route until any HTTP answer arrives; resolves with the ms since `started`. */
export async function firstAnswer(url: string, key: string, started: number, timeoutMs = 60_000): Promise<number> {
  for (;;) {
    try {
      await (await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
      return performance.now() - started;
    } catch {
      if (performance.now() - started > timeoutMs) throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

async function timeOneStart(launcher: Launcher): Promise<number> {
  const port = await getFreePort();
  const started = performance.now();
  const proc = spawnServer(launcher, port);
  try {
    return await firstAnswer(`http://127.0.0.1:${port}${RESUME_PATH}`, launcher.key, started);
  } finally {
    await stopProcess(proc);
  }
}

/**
 * Starts each server `runs` times (default 5) and times spawn → first answer on resume.
 * Rounds interleave the servers, so a burst of load from elsewhere on the machine hits all of
 * them alike; the fastest run is the least disturbed one.
 */
export async function measureStartups(runs = 5, launchers: readonly Launcher[] = START_LAUNCHERS): Promise<StartupResult[]> {
  buildServerForBench();
  const runsMs = launchers.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [j, launcher] of launchers.entries()) runsMs[j]!.push(await timeOneStart(launcher));
  }
  return launchers.map((launcher, j) => {
    const all = runsMs[j]!;
    const sorted = [...all].sort((a, b) => a - b);
    return { name: launcher.name, minMs: sorted[0] ?? NaN, medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN, runsMs: all };
  });
}

/** The Markdown section of the start-up rows, as ratios against Prism's (the first row). */
export function renderStartups(results: readonly StartupResult[]): string {
  const prism = results[0];
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : 'n/a');
  const lines = [
    '## Start to first answer',
    '',
    'From spawning the process to the first HTTP answer of POST /v1/sessions/…/resume with a bearer key (polled every 10 ms;',
    'the server with API_KEYS set, the sandbox with a sandbox_ key, each with its default settings unless the row says otherwise);',
    'rounds interleave the servers. Target: the server and the sandbox each at most 0.5 s and at most 0.5× Prism.',
    'On a loaded machine read the fastest run (least disturbed).',
    '',
    '| start | fastest ms | × Prism | median ms | × Prism | runs ms |',
    '|---|---:|---:|---:|---:|---|',
    ...results.map(
      (r, i) =>
        `| ${r.name} | ${Math.round(r.minMs)} | ${i === 0 ? 'baseline' : ratio(r.minMs, prism?.minMs)} | ${Math.round(r.medianMs)} | ` +
        `${i === 0 ? 'baseline' : ratio(r.medianMs, prism?.medianMs)} | ${r.runsMs.map((ms) => Math.round(ms)).join(', ')} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
