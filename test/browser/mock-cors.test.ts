/**
 * Browser use of the mock: a page on another origin calls Prism with `Authorization`
 * (which forces a CORS preflight) and `Prefer`, in headless Chromium, and reads the
 * example answers and the Retry-After header (issue #6).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { launchBrowser } from '../helpers/browser.js';
import { startPrism, type PrismServer } from '../helpers/prism.js';

let prism: PrismServer;
let page: Server;
let browser: Browser;
let pageUrl: string;

beforeAll(async () => {
  prism = await startPrism();
  // The page's origin is localhost:<port>, the mock's is 127.0.0.1:<other port>: cross-origin.
  page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => page?.close(r));
  await prism?.stop();
});

interface PageAnswer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

describe('mock from a browser page on another origin', () => {
  it('answers the preflighted requests with the example bodies', async () => {
    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const scenarios = listScenarios().filter((s) => [200, 404, 409, 429].includes(s.status));
    const answers = await tab.evaluate(
      async ({ base, prefers }) => {
        const out: PageAnswer[] = [];
        for (const prefer of prefers) {
          const res = await fetch(`${base}/v1/sessions/sess_paused_1/resume`, {
            method: 'POST',
            headers: { Authorization: 'Bearer mock-key', Prefer: prefer },
          });
          out.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
        }
        return out;
      },
      { base: prism.url, prefers: scenarios.map((s) => s.prefer) },
    );
    expect(answers).toEqual(scenarios.map((s) => ({ status: s.status, retryAfter: s.headers['Retry-After'] ?? null, body: s.body })));
    // Cross-origin with Authorization and Prefer: the browser must preflight, and a
    // refused preflight makes fetch throw, failing this test.
    expect(await tab.evaluate(() => location.origin)).not.toBe(new URL(prism.url).origin);
    await tab.close();
  });
});
