/**
 * The HTML reference: `npm run docs`'s builder renders the spec, the reference server
 * (createApp, through its docs router) serves it at /docs and the raw spec at /openapi.yaml
 * without a key. At the load event the page is complete, with JavaScript and without: the text
 * of every section (the resume operation, its responses and their schemas, the webhook and its
 * payload, the behaviour policies, the decision record) is in the page and painted, as
 * docs/spec-review.md says. Headless Chromium then shows the sections in that order, each
 * decision with its three parts, and a response opening on a click. The page asks nothing of
 * any other host (no script, image or telemetry, not even one its Content-Security-Policy would
 * block). Screenshots: test-output/docs-at-load.png (the whole page at load), docs.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, specPath } from '@session-resume-api/runtime/contract';
import { buildDocs } from '../../tools/docs/build-docs.js';
import { createApp } from '../../server/app.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { launchBrowser } from '../helpers/browser.js';
import { listen, type Listening } from '../helpers/listen.js';

const outDir = fileURLToPath(new URL('../../test-output/', import.meta.url));
const htmlPath = `${outDir}docs-page/index.html`;

let server: Listening;
let baseUrl: string;
let browser: Browser;

/** The reference server with its HTML reference at `docsHtmlPath`. */
const serve = async (docsHtmlPath: string) => listen(await createApp({ store: createMemorySessionStore(), apiKeys: ['docs-key'], docsHtmlPath }));

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  await buildDocs({ outputPath: htmlPath });
  server = await serve(htmlPath);
  baseUrl = server.url;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The first of `contract`'s decisions' texts up to any Markdown code (whose backticks split the rendered text). */
const plain = (text: string) => text.replace(/\s+/g, ' ').split('`')[0]!.trim();
const decisions = contract.document['x-decisions'] as { id: string; topic: string; 'client-tolerance': string }[];
const lastDecision = decisions.at(-1)!;

/**
 * Text that only the body of each section shows (the sidebar repeats none of it), from the top
 * of the page to its end: what a reader must find without scrolling anything into view first.
 */
const SECTION_TEXTS = {
  operation: 'Of several concurrent resumes of one paused session exactly one succeeds.',
  'first response': 'The session was paused and has resumed',
  'response schema': 'Whether the operation completed successfully.',
  'another response': 'The session exists but is not paused',
  webhook: 'The same event can be delivered more than once',
  'webhook header': 'Identity of the event, the same on every attempt and replay (Standard Webhooks).',
  'behaviour policies': 'retryableStatuses',
  'decision record': 'Every point the service description leaves open',
  'last decision': plain(lastDecision['client-tolerance']).slice(0, 80),
};

/**
 * Runs in the page: for each text, whether an element showing it is laid out with a non-empty
 * box and is visible (not hidden, not transparent, not skipped by content-visibility).
 */
function paintedTexts(texts: Record<string, string>): Record<string, boolean> {
  const painted = (text: string) => {
    const holders = [...document.body.querySelectorAll('*')].filter(
      (el) => el.textContent?.includes(text) && ![...el.children].some((child) => child.textContent?.includes(text)),
    );
    return holders.some((el) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && el.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true });
    });
  };
  return Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, painted(text)]));
}

const everyTextPainted = Object.fromEntries(Object.keys(SECTION_TEXTS).map((name) => [name, true]));

describe('API reference at /docs', () => {
  it('is complete at the load event with JavaScript: the text of every section is painted, none is left to render', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Measured by the first listener of the load event, before any script of the page acts on it.
    await page.addInitScript({
      content: `addEventListener('load', () => { window.atLoad = (${paintedTexts.toString()})(${JSON.stringify(SECTION_TEXTS)}); });`,
    });
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    expect(await page.evaluate(() => (window as unknown as { atLoad: unknown }).atLoad)).toEqual(everyTextPainted);
    await page.screenshot({ path: `${outDir}docs-at-load.png`, fullPage: true });
    await page.close();
  });

  it('is complete with JavaScript off: the text of every section is in the HTML itself', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    expect(await page.evaluate(paintedTexts, SECTION_TEXTS)).toEqual(everyTextPainted);
    await context.close();
  });

  it('shows the resume operation, its responses, the webhook payload, the policies, then the decisions, offline', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const external: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(baseUrl) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      external.push(url);
      return route.abort();
    });
    // Every request the page makes, those a Content-Security-Policy blocks (never routed) included.
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    // Redoc's script takes over the markup as it is (a render that differed would throw here).
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const res = await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("connect-src 'self'");
    const atLoad = await page.evaluate(() => ({ text: document.body.innerText, images: [...document.images].map((i) => i.src) }));
    expect(atLoad.text).not.toMatch(/Loading/i);
    expect(atLoad.text).toContain('Resume a paused agent session');
    expect(atLoad.text).toContain('Local development: reference server of this toolkit (npm start)');
    expect(atLoad.text).not.toContain('`');
    expect(atLoad.images.filter((src) => !src.startsWith('data:') && !src.startsWith(baseUrl))).toEqual([]);
    // One page, top to bottom: the overview, the operation, the webhook, the policies, then the
    // decisions, in the sidebar's order too.
    expect(await page.locator('.api-content h1, .api-content h2').allInnerTexts()).toEqual([
      'Session Resume API (2.0.0)',
      'sessions',
      'Resume a paused session',
      'webhooks',
      expect.stringMatching(/^Session event delivered to your webhook URL\b/),
      'Behaviour policies',
      'Decision record',
    ]);
    expect((await page.locator('.menu-content').innerText()).split('\n').slice(0, 4)).toEqual([
      'sessions',
      'webhooks',
      'Behaviour policies',
      'Decision record',
    ]);
    const content = await page.locator('.api-content').innerText();
    const record = content.slice(content.indexOf('Every point the service description leaves open'));
    const starts = decisions.map(({ id, topic }) => record.indexOf(`${id}: ${topic}`));
    expect(
      starts.every((at, i) => at > (starts[i - 1] ?? -1)),
      'every decision, in order',
    ).toBe(true);
    for (const [i, { id }] of decisions.entries()) {
      const section = record.slice(starts[i], starts[i + 1] ?? undefined);
      expect(section, id).toMatch(/The service's description says: \S[\s\S]*This document chose: \S[\s\S]*The client tolerates: \S/);
    }
    const webhook = content.slice(content.indexOf('Session event delivered to your webhook URL'), content.indexOf('Behaviour policies'));
    for (const field of ['event', 'session', 'timestamp']) expect(webhook).toMatch(new RegExp(`^${field}\\b`, 'm'));
    // Readable in the middle column: no table wider than the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // Every declared response is listed; the first is open, another opens on a click (the page is live).
    const responses = Object.keys((contract.document.paths['/v1/sessions/{session_id}/resume'] as { post: { responses: object } }).post.responses);
    for (const status of responses)
      await expect(
        page
          .getByRole('button', { name: new RegExp(`^${status} `) })
          .first()
          .isVisible(),
      ).resolves.toBe(true);
    const conflict = page.getByRole('button', { name: /^409 / }).first();
    expect(await page.getByRole('button', { name: /^200 / }).first().getAttribute('aria-expanded')).toBe('true');
    expect(await conflict.getAttribute('aria-expanded')).not.toBe('true');
    await conflict.click();
    await expect.poll(() => conflict.getAttribute('aria-expanded')).toBe('true');
    await conflict.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${outDir}docs.png`, fullPage: false });
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
    await page.close();
  });

  it('answers GET / without a key with JSON pointing to /docs and /openapi.yaml', async () => {
    const res = await fetch(`${baseUrl}/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { docs: string; openapi: string };
    expect(body).toMatchObject({ docs: '/docs', openapi: '/openapi.yaml' });
    expect((await fetch(`${baseUrl}${body.docs}`)).status).toBe(200);
    // Any other method on / is no operation of the spec: 404, key or not (x-decisions: unknown-paths).
    expect((await fetch(`${baseUrl}/`, { method: 'POST' })).status).toBe(404);
  });

  it('serves the raw spec at /openapi.yaml', async () => {
    const res = await fetch(`${baseUrl}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await res.text()).toBe(readFileSync(specPath, 'utf8'));
  });

  it('answers 503 with the command to run when the page is not built', async () => {
    const other = await serve(`${outDir}missing/index.html`);
    try {
      const res = await fetch(`${other.url}/docs`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run docs');
    } finally {
      await other.close();
    }
  });
});
