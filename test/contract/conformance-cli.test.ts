/**
 * `npm run conformance` as a consumer runs it: the pass/fail table and exit status 0,
 * `--help` saying it is safe against a live service, exit status 2 on a usage error.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type PrismServer } from '../helpers/prism.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (...args: string[]) => spawnSync('npm', ['run', '-s', 'conformance', '--', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  await prism?.stop();
});

describe('npm run conformance', () => {
  it('prints a pass/fail table and exits 0 against the mock', () => {
    const result = run('--base-url', prism.url, '--api-key', 'mock-key', '--mode', 'mock');
    expect(result.stdout).toMatch(/^PASS +unknown session id → 404 +404$/m);
    expect(result.stdout).toContain('12 passed, 0 failed, 1 skipped');
    expect(result.status).toBe(0);
  });

  it('exits 1 when a check fails', () => {
    const result = run('--base-url', prism.url, '--api-key', 'k');
    expect(result.stdout).toMatch(/^FAIL +unknown session id → 404/m);
    expect(result.status).toBe(1);
  });

  it('documents in --help that it only resumes the session it is given', () => {
    const result = run('--help');
    expect(result.stdout).toContain('the only session it resumes is the one given with\n--paused-session');
    expect(result.status).toBe(0);
  });

  it('exits 2 with the usage when a required option is missing', () => {
    const result = run('--api-key', 'k');
    expect(result.stderr).toContain('--base-url is required');
    expect(result.status).toBe(2);
  });
});
