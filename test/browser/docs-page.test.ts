/**
 * The HTML reference: `npm run docs`'s builder renders the spec, the reference server
 * (createApp, through its docs router) serves it at /docs and the raw spec at /openapi.yaml
 * without a key, and headless Chromium shows the resume operation and its responses, then the
 * webhook payload, then the decisions (in that order in the sidebar), each decision with its
 * three parts. The page asks nothing of any other host (no script, image or telemetry, not even
 * one its Content-Security-Policy would block). At the load event the overview is complete
 * (no "Loading" anywhere, the servers' descriptions as plain text) and the sidebar lists every
 * section, as docs/spec-review.md says. Screenshots: test-output/docs-at-load.png, docs.png, docs-decisions.png.
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
const serve = async (docsHtmlPath: string) =>
  listen(await createApp({ store: createMemorySessionStore(), apiKeys: ['docs-key'], docsHtmlPath }));

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

describe('API reference at /docs', () => {
  it('shows the resume operation, its responses, the webhook payload, then the decisions, offline', async () => {
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
    const res = await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("connect-src 'self'");
    // Complete at the load event, as a plain headless screenshot sees it.
    await page.screenshot({ path: `${outDir}docs-at-load.png` });
    const atLoad = await page.evaluate(() => ({ text: document.body.innerText, images: [...document.images].map((i) => i.src) }));
    expect(atLoad.text).not.toMatch(/Loading/i);
    expect(atLoad.text).toContain('Resume a paused agent session');
    expect(atLoad.text).toContain('Local development: reference server of this toolkit (npm start)');
    expect(atLoad.text).not.toContain('`');
    expect([...new Set(atLoad.text.split('\n').filter((line) => /^(sessions|webhooks|Decision record)$/.test(line)))]).toEqual(['sessions', 'webhooks', 'Decision record']);
    expect(atLoad.images.filter((src) => !src.startsWith('data:') && !src.startsWith(baseUrl))).toEqual([]);
    const textOf = async (hash: string, waitFor: string) => {
      await page.goto(`${baseUrl}/docs${hash}`);
      await page.waitForFunction((t) => document.body.innerText.includes(t), waitFor);
      return page.locator('body').innerText();
    };
    // Redoc 3 shows one section per route: the overview, then the tags in the sidebar's order:
    // the operation and the webhook first, the decision record last.
    const overview = await textOf('', 'Session Resume API');
    const sidebar = overview.slice(0, overview.indexOf('Session Resume API ('));
    expect(sidebar.split('\n').filter((line) => /^(sessions|webhooks|Decision)/.test(line))).toEqual(['sessions', 'webhooks', 'Decision record']);
    await textOf('#/decision-record', 'not-paused-status');
    // Every decision of x-decisions, in order, each section with its three parts. Redoc renders
    // a long section as the reader scrolls: scroll to its end, then read the DOM.
    const recorded = contract.document['x-decisions'] as { id: string; topic: string }[];
    for (let moved = true; moved; ) {
      moved = await page.evaluate(() => window.scrollY !== (window.scrollBy(0, 900), window.scrollY));
      await page.waitForTimeout(50);
    }
    const last = recorded.at(-1)!;
    await page.waitForFunction((heading) => {
      const text = document.getElementById('redoc')?.textContent ?? '';
      return text.slice(text.indexOf('Every point the service description leaves open')).includes(heading);
    }, `${last.id}: ${last.topic}`);
    const rendered = await page.evaluate(() => document.getElementById('redoc')?.textContent ?? '');
    // The section's own text, after the sidebar (which lists the same headings).
    const record = rendered.slice(rendered.indexOf('Every point the service description leaves open'));
    const starts = recorded.map(({ id, topic }) => record.indexOf(`${id}: ${topic}`));
    expect(starts.every((at, i) => at > (starts[i - 1] ?? -1)), 'every decision, in order').toBe(true);
    for (const [i, { id }] of recorded.entries()) {
      const section = record.slice(starts[i], starts[i + 1] ?? undefined);
      expect(section, id).toMatch(/The service's description says: \S[\s\S]*This document chose: \S[\s\S]*The client tolerates: \S/);
    }
    // One section per decision, readable in the middle column: no table wider than the page.
    const heading = page.getByRole('heading', { name: 'not-paused-status: HTTP status of the not_paused answer' }).first();
    await heading.scrollIntoViewIfNeeded();
    expect(await heading.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: `${outDir}docs-decisions.png`, fullPage: false });
    const sessions = await textOf('#/sessions', '/v1/sessions/{session_id}/resume');
    expect(sessions).toContain('Resume a paused session');
    // Every declared response is listed; the first is open, the others open on a click.
    expect(sessions).toContain('Responses\n200\n400\n401\n404\n405\n408\n409\n413\n415\n422\n429\n431\n500\n503\n');
    expect(sessions).toContain('The session was paused and has resumed');
    await page.getByText('409', { exact: true }).first().click();
    await page.waitForFunction(() => document.body.innerText.includes('The session exists but is not paused'));
    await page.screenshot({ path: `${outDir}docs.png`, fullPage: false });
    const webhooks = await textOf('#/webhooks', 'Session event delivered to your webhook URL');
    expect(webhooks).toContain('The same event can be delivered more than once');
    for (const field of ['event', 'session', 'timestamp']) expect(webhooks).toMatch(new RegExp(`^${field}\\b`, 'm'));
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
