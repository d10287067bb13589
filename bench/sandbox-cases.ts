/**
 * Sandbox vs Prism rows of the bench: resume throughput of the sandbox against Prism's mock with
 * its default settings, and start to first answer of each, every number against Prism in the
 * same run. Each server runs as its own process, as a developer starts it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from '../test/helpers/free-port.js';
import type { CaseSpec } from './cases.js';
import type { Target } from './targets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const prismBin = `${root}node_modules/.bin/prism`;
const SANDBOX_KEY = 'sandbox_bench';
const resumePath = '/v1/sessions/sess_running_1/resume';

/** How to start one server as a developer would. */
interface Launcher {
  name: string;
  command: string;
  args: (port: number) => string[];
  env?: Record<string, string>;
}

const launchers = {
  prism: { name: 'Prism 5.14.2 mock, defaults', command: prismBin, args: (port) => ['mock', `${root}spec/openapi.yaml`, '--host', '127.0.0.1', '--port', String(port)] },
  npmMock: { name: 'npm run mock (Prism through tsx)', command: 'npm', args: () => ['run', 'mock', '--silent'] },
  sandboxTsx: { name: 'sandbox from the TypeScript sources (tsx server/main.ts --sandbox)', command: process.execPath, args: () => ['--import', 'tsx', `${root}server/main.ts`, '--sandbox'] },
  sandboxBuilt: { name: 'sandbox, npm run sandbox (node server/dist/main.js --sandbox)', command: process.execPath, args: () => [`${root}server/dist/main.js`, '--sandbox'] },
} satisfies Record<string, Launcher>;

function spawnServer(launcher: Launcher, port: number, env: Record<string, string> = {}): ChildProcess {
  return spawn(launcher.command, launcher.args(port), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ...launcher.env, ...env },
    // Output is drained, not kept: logging costs what it costs by default, but never blocks on a full pipe.
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: launcher.command === 'npm',
  });
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  // npm runs in its own group: signal the group so Prism under it stops too.
  if (proc.spawnargs[0] === 'npm' && proc.pid) process.kill(-proc.pid, 'SIGTERM');
  else proc.kill('SIGTERM');
  await exited;
}

/** Polls the resume route until any HTTP answer arrives; resolves with the ms since `started`. */
async function firstAnswer(url: string, headers: Record<string, string>, started: number, timeoutMs = 60_000): Promise<number> {
  for (;;) {
    try {
      await (await fetch(url, { method: 'POST', headers })).arrayBuffer();
      return performance.now() - started;
    } catch {
      if (performance.now() - started > timeoutMs) throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

async function startProcessTarget(launcher: Launcher, env: Record<string, string> = {}): Promise<Target> {
  const port = await getFreePort();
  const proc = spawnServer(launcher, port, env);
  const url = `http://127.0.0.1:${port}`;
  await firstAnswer(`${url}${resumePath}`, { authorization: `Bearer ${SANDBOX_KEY}` }, performance.now());
  return { url, close: () => stopProcess(proc), stop: () => stopProcess(proc) };
}

/** Builds the packages when a source is newer than the build, as `npm run sandbox` does first. */
export function buildServerForBench(): void {
  execFileSync(process.execPath, [`${root}.ci/build.mjs`, '--if-stale', '--quiet'], { cwd: root, stdio: 'ignore' });
}

/** The throughput rows: Prism with its defaults is the baseline; the sandbox with its defaults and quiet. */
export function listSandboxCases(): CaseSpec[] {
  const resume = { path: resumePath, method: 'POST' as const, headers: { authorization: `Bearer ${SANDBOX_KEY}` } };
  const group = 'mock vs sandbox: resume';
  const baseline = launchers.prism.name;
  return [
    { group, name: baseline, baseline, start: () => startProcessTarget(launchers.prism), ...resume },
    { group, name: 'sandbox (npm run sandbox), default log level', baseline, start: () => startProcessTarget(launchers.sandboxBuilt), ...resume },
    { group, name: 'sandbox (npm run sandbox), LOG_LEVEL=warn', baseline, start: () => startProcessTarget(launchers.sandboxBuilt, { LOG_LEVEL: 'warn' }), ...resume },
  ];
}

/** One start-to-first-answer measurement: the fastest and the median run, and every run, in ms. */
export interface StartupResult {
  name: string;
  minMs: number;
  medianMs: number;
  runsMs: number[];
}

/**
 * Starts each server `runs` times (default 5) and times spawn → first HTTP answer on resume.
 * Rounds interleave the servers, so a burst of load from elsewhere on the machine hits all of
 * them alike; the fastest run is the least disturbed one.
 */
export async function measureStartups(runs = 5): Promise<StartupResult[]> {
  buildServerForBench();
  const order = [launchers.prism, launchers.npmMock, launchers.sandboxTsx, launchers.sandboxBuilt];
  const runsMs = new Map<Launcher, number[]>(order.map((l) => [l, []]));
  for (let i = 0; i < runs; i++) {
    for (const launcher of order) {
      const port = await getFreePort();
      const started = performance.now();
      const proc = spawnServer(launcher, port);
      try {
        runsMs.get(launcher)?.push(await firstAnswer(`http://127.0.0.1:${port}${resumePath}`, { authorization: `Bearer ${SANDBOX_KEY}` }, started));
      } finally {
        await stopProcess(proc);
      }
    }
  }
  return order.map((launcher) => {
    const all = runsMs.get(launcher) ?? [];
    const sorted = [...all].sort((a, b) => a - b);
    return { name: launcher.name, minMs: sorted[0] ?? NaN, medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN, runsMs: all };
  });
}

/** The Markdown section of the start-up rows, as ratios against Prism's. */
export function renderStartups(results: readonly StartupResult[]): string {
  const prism = results[0];
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : 'n/a');
  const lines = [
    '## Start to first answer',
    '',
    'From spawning the process to the first HTTP answer of POST /v1/sessions/…/resume (polled every 10 ms); rounds interleave',
    'the servers. Target: the sandbox at most 0.5× Prism. On a loaded machine read the fastest run (least disturbed).',
    '',
    '| server | fastest ms | × Prism | median ms | × Prism | runs ms |',
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
