/**
 * `watch --from`: a HAR recorded by Chromium (playwright's recordHar) while the frontend
 * example resumes sessions against the sandbox is graded with no drift, and the committed
 * fixtures (a redacted recording, and a copy with one answer broken by hand) give no drift and
 * exactly that drift.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSandboxKey } from '../../client/sandbox/index.js';
import { startPageServer, type PageServer } from '../../examples/frontend-e2e/page-server.js';
import { launchBrowser } from '../helpers/browser.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { watchResult, type WatchResult } from '../helpers/watch-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'test/fixtures/watch');
const dir = mkdtempSync(join(tmpdir(), 'watch-har-'));
let sandbox: SandboxProcess;
let pages: PageServer;
let browser: Browser;

beforeAll(async () => {
  [sandbox, pages, browser] = await Promise.all([startSandboxProcess(), startPageServer(), launchBrowser()]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const watchFrom = (file: string) =>
  new Promise<WatchResult>((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'cli/main.ts', 'watch', '--json', '--from', file],
      { cwd: root, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve(watchResult(error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr));
      },
    );
  });

/** Resumes `sessionId` by clicking in the frontend example, as a user does. */
async function resumeInPage(page: import('playwright-core').Page, key: string, sessionId: string, prefer?: string): Promise<void> {
  await page.goto(`${pages.origin}/?${new URLSearchParams({ api: sandbox.url, key, ...(prefer ? { prefer } : {}) })}`);
  await page.fill('#session-id', sessionId);
  await page.click('button[type=submit]');
  await page.waitForFunction(() => !/^(Resuming…)?$/.test(document.querySelector('#outcome')?.textContent ?? ''));
}

describe('watch --from a HAR file', () => {
  it('Chromium’s recording of the frontend example: every resume graded, no drift', async () => {
    const har = join(dir, 'frontend.har');
    const context = await browser.newContext({ recordHar: { path: har, content: 'embed' } });
    const page = await context.newPage();
    const key = newSandboxKey();
    await resumeInPage(page, key, 'sess_paused_1');
    await resumeInPage(page, key, 'sess_paused_1');
    await resumeInPage(page, key, 'sess_does_not_exist');
    await resumeInPage(page, key, 'sess_paused_2', 'code=429');
    await context.close();
    const result = await watchFrom(har);
    expect(result.entries.filter((e) => e.grade === 'drift')).toEqual([]);
    expect(result.code).toBe(0);
    const graded = Object.fromEntries(result.entries.map((e) => [e.rule, e]));
    expect(graded['response-shape']?.evidence).toMatch(/^4 checked/);
    expect(graded['not-paused']?.grade).toBe('pass');
    expect(graded['retry-after']?.grade).toBe('pass');
    expect(readFileSync(har, 'utf8')).toContain(key);
    expect(result.stdout + result.stderr).not.toContain(key);
  }, 60_000);

  it('the committed recording: no drift; its copy with the not_paused answer turned into a 200: that drift alone', async () => {
    const clean = await watchFrom(join(fixtures, 'frontend-e2e.har'));
    expect(clean.entries.filter((e) => e.grade === 'drift')).toEqual([]);
    expect(clean.code).toBe(0);
    const broken = await watchFrom(join(fixtures, 'frontend-e2e-broken.har'));
    const drifts = broken.entries.filter((e) => e.grade === 'drift');
    expect(drifts.map((e) => e.rule)).toEqual(['not-paused']);
    expect(drifts[0]?.exchanges).toMatchObject([{ method: 'POST', path: '/v1/sessions/sess_paused_1/resume', status: 200, fault: 'status 200, not 409' }]);
    expect(broken.driftLines).toHaveLength(1);
    expect(broken.code).toBe(1);
  }, 60_000);
});
