/**
 * tools/lint/check-policies.ts (the last step of `npm run lint:spec`) as a command: it passes the
 * shipped spec, printing each invariant, and fails a spec whose dedupe window is shorter than the
 * sender's redelivery horizon.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { specPath } from '@session-resume-api/runtime/contract';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const main = join(root, 'tools/lint/check-policies.ts');
const original = readFileSync(specPath, 'utf8');

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'check-policies-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const check = (text: string) => {
  const file = join(dir, 'openapi.yaml');
  writeFileSync(file, text);
  return spawnSync(tsx, [main, file], { encoding: 'utf8', timeout: 60_000 });
};

describe('check-policies', () => {
  it('passes the shipped spec and says the horizon and the window in words', () => {
    const run = check(original);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ window-covers-redelivery');
    expect(run.stdout).toMatch(
      /the dedupe window \(dedupe\.windowMs, [^)]+\) covers the longest time from an event's first arrival to its last automatic redelivery, \d/,
    );
  });

  it('fails a spec whose window is shorter than its horizon, naming the invariant', () => {
    const oneHour = original.replace(/windowMs: \d+/, 'windowMs: 3600000');
    expect(oneHour).not.toBe(original);
    const run = check(oneHour);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✗ window-covers-redelivery');
    expect(run.stdout).toContain('(dedupe.windowMs, 1 h) does NOT cover');
    expect(run.stderr).toContain('window-covers-redelivery');
  });
});
