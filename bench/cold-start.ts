/**
 * Start to first answer: spawns a server, polls it on loopback every 10 ms until any HTTP
 * answer arrives, stops it. The reference server as `npm start` and the published bin run it
 * (server/dist/main.js, built by .ci/build.mjs) and from its TypeScript sources, against Prism's
 * mock and a bare node:http floor.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { specPath } from '../spec/contract.js';
import { getFreePort } from '../test/helpers/free-port.js';
import { BENCH_KEY } from './targets.js';

/** One cold-start row: the median ms from spawn to the first answer over `runs` starts. */
export interface ColdStartResult {
  group: string;
  name: string;
  baseline: string;
  medianMs: number;
  runs: number[];
}

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => `${root}node_modules/.bin/${name}`;

/** Builds the packages when a source is newer than the build, as `npm start` does first. */
function buildServer(): string {
  execFileSync(process.execPath, [`${root}.ci/build.mjs`, '--if-stale', '--quiet'], { cwd: root, stdio: 'ignore' });
  return `${root}server/dist/main.js`;
}

async function firstAnswer(command: string, args: string[], env: Record<string, string>, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`);
      const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        async (res) => (await res.arrayBuffer(), true),
        () => false,
      );
      if (answered) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error(`${command} did not answer within 30 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    // The whole group: npm and tsx start children of their own.
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }
}

/** Runs every start `runs` times (default 3), alternating, and keeps each one's median. */
export async function runColdStarts(runs = 3): Promise<ColdStartResult[]> {
  const bundle = buildServer();
  const serverEnv = (port: number) => ({ PORT: String(port), HOST: '127.0.0.1', API_KEYS: BENCH_KEY, LOG_LEVEL: 'silent', NODE_ENV: 'production' });
  const prism = 'Prism mock (its defaults)';
  const starts: [string, (port: number) => Promise<number>][] = [
    [prism, (port) => firstAnswer(bin('prism'), ['mock', specPath, '--host', '127.0.0.1', '--port', String(port)], {}, port)],
    ['bare node:http (the floor)', (port) => firstAnswer(process.execPath, ['-e', `require('http').createServer((q,s)=>s.end()).listen(${port},'127.0.0.1')`], {}, port)],
    ['reference server, npm start (build check, then server/dist/main.js)', (port) => firstAnswer('npm', ['start', '--silent'], serverEnv(port), port)],
    ['reference server, node server/dist/main.js (the published bin)', (port) => firstAnswer(process.execPath, [bundle], serverEnv(port), port)],
    ['reference server from the TypeScript sources (node --import tsx server/main.ts)', (port) => firstAnswer(process.execPath, ['--import', 'tsx', 'server/main.ts'], serverEnv(port), port)],
  ];
  const times = new Map<string, number[]>(starts.map(([name]) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, start] of starts) times.get(name)!.push(await start(await getFreePort()));
  }
  return starts.map(([name]) => {
    const all = times.get(name)!;
    const sorted = [...all].sort((a, b) => a - b);
    return { group: 'start to first answer', name, baseline: prism, medianMs: sorted[Math.floor(sorted.length / 2)]!, runs: all };
  });
}
