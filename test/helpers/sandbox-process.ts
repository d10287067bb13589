/**
 * Runs the reference server in sandbox mode (`server/main.ts --sandbox`) as its own process on
 * a free port, the way `npm run sandbox` does, and stops it after the test file.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from './free-port.js';
import { waitFor } from './wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A started sandbox: its URL, the key its banner printed, its output, and a stop. */
export interface SandboxProcess {
  url: string;
  /** The ready-to-paste key of the start-up banner. */
  bannerKey: string;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts the sandbox with `env` added (LOG_LEVEL warn unless given); resolves once the banner is out. */
export async function startSandboxProcess(env: Record<string, string> = {}): Promise<SandboxProcess> {
  // The documented port when the test sets SANDBOX_PORT (the docs examples), a free one otherwise.
  const port = env.SANDBOX_PORT ? Number(env.SANDBOX_PORT) : await getFreePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--sandbox'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', SANDBOX_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  await waitFor(
    () => {
      if (exitCode !== undefined) throw new Error(`sandbox exited with ${exitCode}:\n${log}`);
      return /Key: +sandbox_\S+/.test(log);
    },
    { timeoutMs: 30_000, what: `sandbox on ${port}` },
  ).catch((err: unknown) => {
    proc.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${log}`);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    bannerKey: /Key: +(sandbox_\S+)/.exec(log)?.[1] ?? '',
    output: () => log,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `server/main.ts` with `args` expecting it to refuse to start; resolves with its exit code and output. */
export async function runServerExpectingExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', PORT: String(await getFreePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output: log };
}
