/**
 * `npm run spec:diff -- <ref>` in a scratch git repository: passes with no previous commit
 * or no spec there, fails on a breaking change, passes it with a new major info.version.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { specPath } from '@session-resume-api/runtime/contract';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const main = join(root, 'tools/diff/spec-diff-main.ts');
const original = readFileSync(specPath, 'utf8');

let repo: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
const writeSpec = (text: string) => writeFileSync(join(repo, 'spec/openapi.yaml'), text);
const commit = (message: string) => {
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', message);
};
const specDiff = (ref: string, ...more: string[]) => spawnSync(tsx, [main, ref, ...more], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
const version = /^ {2}version: (\d+)\.\d+\.\d+$/m;
const major = Number(version.exec(original)?.[1]);
/** The spec with its info.version's major part raised by one. */
const bumped = (text: string) => text.replace(version, `  version: ${major + 1}.0.0`);
const without404 = original.replace(/\n {8}"404":\n(?: {10}.*\n)+/, '\n');

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'spec-diff-'));
  mkdirSync(join(repo, 'spec'));
  git('init', '-q');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('spec:diff', () => {
  it('passes when there is no previous commit', () => {
    writeSpec(original);
    commit('first');
    const result = specDiff('HEAD~1');
    expect(result.stdout).toContain('no commit HEAD~1');
    expect(result.status).toBe(0);
  });

  it('passes when the spec did not exist at the ref', () => {
    commit('empty');
    writeSpec(original);
    commit('add spec');
    const result = specDiff('HEAD~1');
    expect(result.stdout).toContain('does not exist at HEAD~1');
    expect(result.status).toBe(0);
  });

  it('fails on a removed response without a new major version, naming it', () => {
    expect(without404).not.toBe(original);
    writeSpec(original);
    commit('first');
    writeSpec(without404);
    const result = specDiff('HEAD');
    expect(result.stdout).toContain('[Removed] Response 404');
    expect(result.status).toBe(1);
  });

  it('passes the same change when info.version gets a new major version', () => {
    writeSpec(original);
    commit('first');
    writeSpec(bumped(without404));
    const result = specDiff('HEAD');
    expect(result.stdout).toMatch(new RegExp(`allowed: info.version has a new major version \\(${major}\\.\\d+\\.\\d+ → ${major + 1}\\.0\\.0\\)`));
    expect(result.status).toBe(0);
  });

  it('--format markdown prints the changelog, breaking first, with the same exit status', () => {
    writeSpec(original);
    commit('first');
    // The fixture change: a response removed (breaking) and one added (non-breaking).
    writeSpec(without404.replace('      responses:\n', '      responses:\n        "418":\n          description: Teapot.\n'));
    const failing = specDiff('HEAD', '--format', 'markdown');
    expect(failing.stdout).toMatch(/^## API changes since `HEAD`\n/);
    expect(failing.stdout).toContain('### Breaking (');
    expect(failing.stdout).toMatch(/\| Removed \| Response 404.* \| `POST \/v1\/sessions\/\{session_id\}\/resume · responses\.404` \|/);
    expect(failing.stdout.match(/^### (\S+)/m)?.[1]).toBe('Breaking');
    expect(failing.stdout).toContain('### Non-breaking (');
    expect(failing.status).toBe(1);
    writeSpec(bumped(without404));
    const allowed = specDiff('HEAD', '--format', 'markdown');
    expect(allowed.stdout).toContain('> Breaking changes, allowed');
    expect(allowed.status).toBe(0);
    expect(specDiff('HEAD', '--format', 'html').status).toBe(2);
  });

  it("fails the issue's two behaviour changes, naming the side each breaks, in text and in the changelog", () => {
    const tenMinutes = original.replace(/windowMs: \d+/, 'windowMs: 600000');
    const fewerRetried = original.replace('retryableStatuses: [429, 500, 502, 503, 504]', 'retryableStatuses: [429, 503]');
    expect(tenMinutes).not.toBe(original);
    expect(fewerRetried).not.toBe(original);
    writeSpec(original);
    commit('first');
    writeSpec(tenMinutes);
    const window = specDiff('HEAD');
    expect(window.stdout).toMatch(
      /breaking for receivers: x-delivery-policy dedupe\.windowMs changed \d+ \([^)]+\) → 600000 \(10 min\): a shorter dedupe window/,
    );
    expect(window.stdout).not.toContain('Unclassified');
    expect(window.stdout).not.toContain('No breaking change');
    expect(window.status).toBe(1);
    writeSpec(fewerRetried);
    const statuses = specDiff('HEAD');
    expect(statuses.stdout).toContain('breaking for clients: x-retry-policy retryableStatuses changed [429, 500, 502, 503, 504] → [429, 503]');
    expect(statuses.status).toBe(1);
    const changelog = specDiff('HEAD', '--format', 'markdown');
    expect(changelog.stdout).toMatch(
      /\| Changed \| `x-retry-policy retryableStatuses` \| .* \| \*\*clients\*\* \| a client kept to the previous policy retries this status/,
    );
    expect(changelog.status).toBe(1);
    writeSpec(bumped(fewerRetried));
    expect(specDiff('HEAD').status).toBe(0);
  });

  it('exits 2 for a ref that does not exist, naming it', () => {
    writeSpec(original);
    commit('first');
    for (const ref of ['nonexistent-ref', 'HEAD~x', 'nonexistent~1']) {
      const result = specDiff(ref);
      expect(result.stderr).toContain(`${ref} is not a commit of this repository`);
      expect(result.status).toBe(2);
    }
  });

  it('passes HEAD~2 of a two-commit history only as far as it goes: HEAD~1 compares, HEAD~2 has nothing', () => {
    writeSpec(original);
    commit('first');
    commit('second');
    expect(specDiff('HEAD~1').stdout).toContain('No breaking change');
    const beyond = specDiff('HEAD~2');
    expect(beyond.stdout).toContain('no commit HEAD~2');
    expect(beyond.status).toBe(0);
  });

  it('exits 2 without a ref', () => {
    writeSpec(original);
    commit('first');
    expect(specDiff('').status).toBe(2);
  });
});
