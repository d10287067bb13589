/**
 * The conformance suite runs again against the same target: `--reset` puts a sandbox key's world
 * back to its seed set first; without it a second run says why the paused session fails. Against
 * the mock, each row's name states the answer it checked (Prism answers 422 for an id outside
 * the bounds, and the row says so).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceOptions } from '../../cli/conformance/conformance-options.js';
import { runConformance } from '../../cli/conformance/run-conformance.js';
import { startPrism, type PrismServer } from '../helpers/prism.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';

let sandbox: SandboxProcess;
let prism: PrismServer;

beforeAll(async () => {
  [sandbox, prism] = await Promise.all([startSandboxProcess(), startPrism()]);
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  await prism?.stop();
});

const PAUSED = 'paused session → 200 success, then not_paused on a second call';
const options = (apiKey: string, reset: boolean): ConformanceOptions => ({
  baseUrl: sandbox.url,
  apiKey,
  pausedSession: 'sess_paused_1',
  notPausedSession: 'sess_running_1',
  reset,
});

describe('running conformance twice against one sandbox', () => {
  it('passes both runs with --reset', async () => {
    for (const run of [1, 2]) {
      const report = await runConformance(options('sandbox_conformance_rerun', true));
      expect(
        report.results.filter((r) => r.outcome === 'fail'),
        `run ${run}`,
      ).toEqual([]);
      expect(report.results[0]).toMatchObject({ outcome: 'pass', name: expect.stringContaining('/_sandbox/reset') });
    }
  });

  it('fails the second run without --reset, saying the session was resumed by an earlier run and what to do', async () => {
    expect((await runConformance(options('sandbox_conformance_twice', false))).ok).toBe(true);
    const second = await runConformance(options('sandbox_conformance_twice', false));
    const paused = second.results.find((r) => r.name === PAUSED);
    expect(paused).toMatchObject({ outcome: 'fail' });
    expect(paused?.detail).toContain('an earlier run may have resumed it');
    expect(paused?.detail).toContain('--reset');
  });

  it('reports a failed reset when the target is not a sandbox', async () => {
    const report = await runConformance({ baseUrl: sandbox.url, apiKey: 'not-a-sandbox-key', reset: true });
    expect(report.results[0]).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('--reset needs a sandbox target') });
    expect(report.ok).toBe(false);
  });
});

describe('row names against the mock', () => {
  it('say what was checked: 401, then 422 for an id outside the bounds', async () => {
    const report = await runConformance({ baseUrl: prism.url, apiKey: 'mock-key', mode: 'mock' });
    const bounds = report.results.filter((r) => r.name.startsWith('session id '));
    expect(bounds).toHaveLength(2);
    for (const row of bounds) {
      expect(row.outcome).toBe('pass');
      expect(row.detail).toBe('401 → 422');
      expect(row.name).toContain('401 without a key, then 422');
      expect(row.name).not.toContain('→ 400');
    }
  });
});
