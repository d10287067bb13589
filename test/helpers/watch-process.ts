/**
 * Runs `session-resume-api watch --json` as its own process (as a user runs it) and stops it
 * with SIGTERM for its report: the proxies' URLs, the live drift lines, each rule's entry and
 * the exit code.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WatchEntry } from '../../cli/watch/watcher.js';
import { waitFor } from './wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What a finished run printed. */
export interface WatchResult {
  code: number | null;
  entries: WatchEntry[];
  /** The live `DRIFT …` lines, in order. */
  driftLines: string[];
  stdout: string;
  stderr: string;
}

/** A running `watch`. */
export interface WatchProcess {
  apiUrl: string | undefined;
  webhookUrl: string | undefined;
  stderr(): string;
  stop(): Promise<WatchResult>;
}

/** Parses a finished run's output. */
export function watchResult(code: number | null, stdout: string, stderr: string): WatchResult {
  const entries = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as WatchEntry);
  return { code, entries, driftLines: stderr.split('\n').filter((line) => line.startsWith('DRIFT')), stdout, stderr };
}

/** Starts `watch --json …args` and resolves once it listens. */
export async function startWatch(args: readonly string[]): Promise<WatchProcess> {
  const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'cli/main.ts', 'watch', '--json', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  await waitFor(
    () => {
      if (proc.exitCode !== null) throw new Error(`watch exited with ${proc.exitCode}:\n${stderr}`);
      return stderr.includes('watch: watching');
    },
    { timeoutMs: 30_000, what: 'watch listening' },
  );
  return {
    apiUrl: /watch: API (\S+)/.exec(stderr)?.[1],
    webhookUrl: /watch: webhooks (\S+)/.exec(stderr)?.[1],
    stderr: () => stderr,
    async stop() {
      proc.kill('SIGTERM');
      return watchResult(await closed, stdout, stderr);
    },
  };
}
