/**
 * The frontend example (examples/frontend-e2e) in headless Chromium against the sandbox as
 * `npm run sandbox` starts it: the page is on another origin, and every test has a fresh
 * sandbox_ key, so its world is its own.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandboxClient, newSandboxKey, type SandboxClient } from '../../client/sandbox/index.js';
import { startPageServer, type PageServer } from '../../examples/frontend-e2e/page-server.js';
import { launchBrowser } from '../helpers/browser.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';

let sandbox: SandboxProcess;
let pages: PageServer;
let browser: Browser;
let page: Page;
let key: string;
let control: SandboxClient;

beforeAll(async () => {
  [sandbox, pages, browser] = await Promise.all([startSandboxProcess(), startPageServer(), launchBrowser()]);
  expect(new URL(sandbox.url).origin).not.toBe(pages.origin);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await sandbox?.stop();
});

beforeEach(async () => {
  key = newSandboxKey();
  control = createSandboxClient({ baseUrl: sandbox.url, apiKey: key });
  page = await browser.newPage();
});
afterEach(async () => {
  await page?.close();
});

/** Opens the page for this test's key, resumes `sessionId` by clicking, and returns what the page says. */
async function resumeInPage(sessionId: string, prefer?: string): Promise<string> {
  const query = new URLSearchParams({ api: sandbox.url, key, ...(prefer ? { prefer } : {}) });
  await page.goto(`${pages.origin}/?${query}`);
  await page.fill('#session-id', sessionId);
  await page.click('button[type=submit]');
  const outcome = page.locator('#outcome');
  await expect.poll(async () => outcome.textContent(), { timeout: 10_000 }).not.toMatch(/^(Resuming…)?$/);
  return (await outcome.textContent()) ?? '';
}

describe('frontend example against the sandbox', () => {
  it('resume → "resumed", and the sandbox emitted the event', async () => {
    expect(await resumeInPage('sess_paused_1')).toBe('Resumed.');
    expect((await control.events()).map((e) => e.payload.session.id)).toEqual(['sess_paused_1']);
  });

  it('resume again → "already running"', async () => {
    expect(await resumeInPage('sess_paused_1')).toBe('Resumed.');
    expect(await resumeInPage('sess_paused_1')).toBe('This session is already running.');
  });

  it('unknown id → "not found"', async () => {
    expect(await resumeInPage('sess_does_not_exist')).toBe('Session not found.');
  });

  it('a forced 429 via Prefer → the retry message, and nothing changed', async () => {
    expect(await resumeInPage('sess_paused_1', 'code=429')).toBe('Too many requests: try again in 30 s.');
    expect((await control.sessions()).find((s) => s.id === 'sess_paused_1')?.status).toBe('paused');
  });

  it('a page follows the event feed live with EventSource (key as access_token) from another origin', async () => {
    await page.goto(`${pages.origin}/?${new URLSearchParams({ api: sandbox.url, key })}`);
    const feed = `${sandbox.url}/_sandbox/events?access_token=${encodeURIComponent(key)}`;
    await page.evaluate((url) => {
      const w = window as unknown as { received: string[] };
      w.received = [];
      const source = new EventSource(url);
      source.addEventListener('session-event', (e) => w.received.push(JSON.parse((e as MessageEvent<string>).data).payload.session.id));
      return new Promise((resolve, reject) => {
        source.addEventListener('open', resolve);
        source.addEventListener('error', () => reject(new Error(`EventSource failed (readyState ${source.readyState})`)));
      });
    }, feed);
    await page.fill('#session-id', 'sess_paused_2');
    await page.click('button[type=submit]');
    await expect.poll(() => page.evaluate(() => (window as unknown as { received: string[] }).received), { timeout: 10_000 }).toEqual(['sess_paused_2']);
  });

  it('a session set up through the control API resumes; a fresh key starts from the seed set', async () => {
    await control.setSession('sess_checkout', 'paused');
    expect(await resumeInPage('sess_checkout')).toBe('Resumed.');
    key = newSandboxKey();
    expect(await resumeInPage('sess_checkout')).toBe('Session not found.');
  });
});
