/** Runs `server/main.ts` as its own process (as `npm start` does) on a free port, for e2e tests. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from './free-port.js';
import { waitFor } from './wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A server process: its URL, its output so far, and ways to end it. */
export interface ServerProcess {
  url: string;
  pid: number;
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns the server with `env` added to a minimal environment. */
function spawnServer(env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, output: () => log, exited };
}

/** Starts the server and resolves once `/healthz` answers 200; rejects with its output if it exits first. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await getFreePort();
  const { proc, output, exited } = spawnServer({ PORT: String(port), ...env });
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
    proc.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${output()}`);
  });
  return {
    url,
    pid: proc.pid!,
    output,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
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
