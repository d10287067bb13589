/** Starts and controls receiver processes (test/helpers/receiver-process.ts) for e2e tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFreePort } from './free-port.js';
import type { ReceiverProcessConfig } from './receiver-process.js';
import { waitFor } from './wait-for.js';

const script = fileURLToPath(new URL('./receiver-process.ts', import.meta.url));

/** A running receiver process and what it printed. */
export interface ReceiverProcess {
  url: string;
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Sends `signal` and resolves when the process exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Another receiver program speaking the same protocol (e.g. one on an installed package), run by plain node in `cwd`. */
export interface ReceiverProgram {
  script: string;
  cwd: string;
}

/** Spawns a receiver on a free port and resolves once it printed READY (default program: receiver-process.ts on the sources). */
export async function startReceiverProcess(config: Omit<ReceiverProcessConfig, 'port'>, program?: ReceiverProgram): Promise<ReceiverProcess> {
  const port = await getFreePort();
  const args = program ? [program.script] : ['--import', 'tsx', script];
  const child = spawn(process.execPath, [...args, JSON.stringify({ ...config, port })], {
    cwd: program?.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let rest = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await Promise.race([
      waitFor(() => lines.includes(`READY ${port}`), { what: `receiver process on ${port}`, timeoutMs: 30_000 }),
      exited.then(() => {
        throw new Error('receiver process exited before READY');
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    lines,
    async kill(signal = 'SIGTERM') {
      if (!gone) child.kill(signal);
      await exited;
    },
  };
}

/** Session ids of the DONE lines of `processes`, in order. */
export function doneIds(processes: ReceiverProcess[]): string[] {
  return processes.flatMap((p) => p.lines.filter((l) => l.startsWith('DONE ')).map((l) => l.split(' ')[1]!));
}

/** Counts how often each value occurs. */
export function countBy(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
