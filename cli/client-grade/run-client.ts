/**
 * How a graded run ends: `--run` starts the client under test in a shell and waits for it to
 * exit; `--serve` waits for the user. Either ends at the time limit, or on SIGINT/SIGTERM.
 * `beforeEnd` runs first in every case but the client's own exit, so the server closes
 * connections before the client is stopped and a connection the grader ends is never counted as
 * the client's.
 */
import { spawn } from 'node:child_process';
import type { RunEnd } from './observations.js';

/** Grace between SIGTERM and SIGKILL of a client stopped at the time limit, in ms. */
const KILL_GRACE_MS = 2000;

/** Settings of one wait. */
export interface EndOptions {
  timeLimitMs: number;
  beforeEnd: () => Promise<void>;
}

/** Resolves at the first of: SIGINT or SIGTERM to this process, the time limit, or `exited` (a promise of the client's exit). */
function firstEnd(options: EndOptions, exited?: Promise<RunEnd>): Promise<RunEnd> {
  const started = performance.now();
  return new Promise<RunEnd>((resolve, reject) => {
    const stopWaiting = () => {
      clearTimeout(timer);
      process.off('SIGINT', onSigint).off('SIGTERM', onSigterm);
    };
    const finish = (end: RunEnd, before: boolean) => {
      stopWaiting();
      (before ? options.beforeEnd() : Promise.resolve()).then(() => resolve(end), reject);
    };
    const onSigint = () => finish({ kind: 'stopped', signal: 'SIGINT' }, true);
    const onSigterm = () => finish({ kind: 'stopped', signal: 'SIGTERM' }, true);
    const timer = setTimeout(() => finish({ kind: 'time-limit', afterMs: Math.round(performance.now() - started) }, true), options.timeLimitMs);
    process.once('SIGINT', onSigint).once('SIGTERM', onSigterm);
    exited?.then(
      (end) => finish(end, false),
      (error: unknown) => {
        stopWaiting();
        reject(error);
      },
    );
  });
}

/** Waits for the user to stop `--serve`, or for the time limit. */
export function waitForStop(options: EndOptions): Promise<RunEnd> {
  return firstEnd(options);
}

/**
 * Runs `command` with `sh -c` in its own process group, its output handed to `onOutput`; resolves
 * when it exits, or stops the group at the end of the wait. Rejects when the shell cannot start.
 */
export async function runClientCommand(
  command: string,
  env: Record<string, string | undefined>,
  options: EndOptions & { onOutput: (chunk: Buffer) => void },
): Promise<RunEnd> {
  const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.on('data', options.onOutput);
  child.stderr.on('data', options.onOutput);
  const exited = new Promise<RunEnd>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ kind: 'exited', code, signal }));
  });
  const end = await firstEnd(options, exited);
  if (end.kind !== 'exited') stopGroup(child.pid, exited);
  return end;
}

/** SIGTERM to the client's process group, SIGKILL if it is still there after the grace. */
function stopGroup(pid: number | undefined, exited: Promise<RunEnd>): void {
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch (error) {
      // ESRCH: the group is gone already, which is what was wanted.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  signal('SIGTERM');
  const kill = setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS);
  kill.unref();
  const stopTimer = () => clearTimeout(kill);
  exited.then(stopTimer, stopTimer);
}
