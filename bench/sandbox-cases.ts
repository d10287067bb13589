/**
 * Sandbox vs Prism rows of the bench: resume throughput of the sandbox against Prism's mock with
 * its default settings, against Prism in the same run (start to first answer: bench/cold-start.ts).
 * Each server runs as its own process, as a developer starts it.
 */
import { getFreePort } from '../test/helpers/free-port.js';
import type { CaseSpec } from './case-spec.js';
import {
  buildServerForBench,
  firstAnswer,
  PRISM_LAUNCHER,
  RESUME_PATH,
  SANDBOX_KEY,
  SANDBOX_LAUNCHER,
  spawnServer,
  stopProcess,
  type Launcher,
} from './cold-start.js';
import type { Target } from './target.js';

async function startProcessTarget(launcher: Launcher, env: Record<string, string> = {}): Promise<Target> {
  // The sandbox rows run the build, as `npm run sandbox` does after its build check.
  if (launcher === SANDBOX_LAUNCHER) buildServerForBench();
  const port = await getFreePort();
  const proc = spawnServer(launcher, port, env);
  const url = `http://127.0.0.1:${port}`;
  await firstAnswer(`${url}${RESUME_PATH}`, launcher.key, performance.now());
  return { url, close: () => stopProcess(proc), stop: () => stopProcess(proc) };
}

/** The throughput rows: Prism with its defaults is the baseline; the sandbox with its defaults and quiet. */
export function listSandboxCases(): CaseSpec[] {
  const resume = { path: RESUME_PATH, method: 'POST' as const, headers: { authorization: `Bearer ${SANDBOX_KEY}` } };
  const group = 'mock vs sandbox: resume';
  const baseline = PRISM_LAUNCHER.name;
  return [
    { group, name: baseline, baseline, start: () => startProcessTarget(PRISM_LAUNCHER), ...resume },
    { group, name: 'sandbox (npm run sandbox), default log level', baseline, start: () => startProcessTarget(SANDBOX_LAUNCHER), ...resume },
    { group, name: 'sandbox (npm run sandbox), LOG_LEVEL=warn', baseline, start: () => startProcessTarget(SANDBOX_LAUNCHER, { LOG_LEVEL: 'warn' }), ...resume },
  ];
}
