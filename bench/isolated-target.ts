/**
 * A bench target in a child process (bench/serve-target.ts), with its own CPU time on call:
 * on a shared box a server's CPU per request moves far less than its requests per second.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Target, TargetName } from './targets.js';

/** A target in its own process; `cpuMicros()` is its user + system CPU time so far. */
export interface IsolatedTarget extends Target {
  cpuMicros(): Promise<number>;
}

/**
 * Starts `name` (with `redisUrl` for the Redis targets) and resolves once it listens; `script`
 * is another tree's bench/serve-target.ts (a before/after comparison in one run).
 */
export async function startIsolated(
  name: TargetName,
  redisUrl?: string,
  script = fileURLToPath(new URL('serve-target.ts', import.meta.url)),
): Promise<IsolatedTarget> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, name, ...(redisUrl ? [redisUrl] : [])], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  return {
    url: line.toString().trim(),
    close: stop,
    stop,
    cpuMicros: async () => {
      const answer = once(child, 'message') as Promise<[{ user: number; system: number }]>;
      child.send('cpu');
      const [{ user, system }] = await answer;
      return user + system;
    },
  };
}

/** A process whose CPU grows less than this over one look is idle (2 % of a core over 500 ms), in µs. */
const IDLE_CPU_MICROS = 10_000;
const IDLE_LOOK_MS = 500;
const IDLE_WAIT_LIMIT_MS = 120_000;

/**
 * The target's CPU time (µs) once it is idle again, at most two minutes on: a receiver whose
 * worker runs in the same process may still be processing what a load acknowledged, and that
 * CPU belongs to the load too.
 */
export async function cpuUntilIdle(cpu: () => Promise<number>): Promise<number> {
  const until = Date.now() + IDLE_WAIT_LIMIT_MS;
  let last = await cpu();
  for (;;) {
    await new Promise((r) => setTimeout(r, IDLE_LOOK_MS));
    const now = await cpu();
    if (now - last < IDLE_CPU_MICROS || Date.now() > until) return now;
    last = now;
  }
}
