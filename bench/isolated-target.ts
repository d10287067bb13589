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
export async function startIsolated(name: TargetName, redisUrl?: string, script = fileURLToPath(new URL('serve-target.ts', import.meta.url))): Promise<IsolatedTarget> {
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
