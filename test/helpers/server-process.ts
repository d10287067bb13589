/**
 * Runs `server/main.ts` as its own process on a free port, for e2e tests: directly with
 * `node --import tsx`, or through `npm start` in its own process group.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from './free-port.js';
import { waitFor } from './wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A server process: its URL, its output so far, and ways to end it. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** stdout and stderr, interleaved as read. */
  output(): string;
  /** stdout alone (the JSON log). */
  stdout(): string;
  /** stderr alone (banners, messages for people). */
  stderr(): string;
  /** Resolves with the exit code once the spawned process (node, or npm) has exited and its output is all read. */
  exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How to start it: `node` (default, LOG_LEVEL warn unless given) or `npm start` (only PATH and `env`). */
export type ServerLauncher = 'node' | 'npm-start';

/** Spawns the server with `env` added to a minimal environment. */
function spawnServer(env: Record<string, string>, launcher: ServerLauncher = 'node') {
  const path = { PATH: process.env.PATH ?? '' };
  const proc =
    launcher === 'npm-start'
      ? // Own process group: npm does not forward SIGTERM to the server, so stop() signals the group.
        spawn('npm', ['start'], { cwd: root, env: { ...path, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
          cwd: root,
          env: { ...path, LOG_LEVEL: 'warn', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let log = '';
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => ((log += d.toString()), (out += d.toString())));
  proc.stderr.on('data', (d: Buffer) => ((log += d.toString()), (err += d.toString())));
  // 'close', not 'exit': the output's last lines ("stopped") may still be in the pipes at 'exit'.
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  return { proc, output: () => log, stdout: () => out, stderr: () => err, exited };
}

/** Starts the server and resolves once `/healthz` answers 200; rejects with its output if it exits first. */
export async function startServerProcess(env: Record<string, string>, launcher: ServerLauncher = 'node'): Promise<ServerProcess> {
  // A documented port when the test sets PORT (the docs examples), a free one otherwise.
  const port = env.PORT ? Number(env.PORT) : await getFreePort();
  const { proc, output, stdout, stderr, exited } = spawnServer({ PORT: String(port), ...env }, launcher);
  const signal = (sig: NodeJS.Signals) => (launcher === 'npm-start' ? process.kill(-proc.pid!, sig) : proc.kill(sig));
  const url = `http://127.0.0.1:${port}`;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  await waitFor(
    async () => {
      if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}:\n${output()}`);
      return (await fetch(`${url}/healthz`)).status === 200;
    },
    { timeoutMs: 30_000, what: `server on ${port}` },
  ).catch((err) => {
    signal('SIGKILL');
    throw new Error(`${(err as Error).message}\n${output()}`);
  });
  return {
    url,
    pid: proc.pid!,
    output,
    stdout,
    stderr,
    exited,
    stop: async (sig = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) signal(sig);
      return exited;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export async function runServerExpectingExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await getFreePort();
  const { proc, output, exited } = spawnServer({ PORT: String(port), ...env });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: output() };
}

/** Runs an operator command (`session-resume-api-server <args>`) with `env`; resolves with its exit code and output. */
export function runServerCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
