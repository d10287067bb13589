/**
 * The built client in headless Chromium: a page served from one loopback origin imports the
 * client (the package's ./client bundle, bundled again by esbuild for the browser, which proves it needs no Node
 * built-in) and resumes sessions on another origin, through a CORS preflight that carries
 * the Authorization header. Each target is one entry of `targets`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResumeOutcome } from '../../client/index.js';
import { createApp } from '../../server/app.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { launchBrowser } from '../helpers/browser.js';
import { listen } from '../helpers/listen.js';
import { sharedPackages } from '../helpers/package-tarball.js';
import { startPrism } from '../helpers/prism.js';
import { startResumeStub } from '../helpers/resume-stub.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** One resume the page performs, and the outcome kind it must come to. */
interface BrowserCase {
  sessionId: string;
  headers?: Record<string, string>;
  /** Key to send instead of the target's (default: the target's valid key). */
  apiKey?: string;
  kind: ResumeOutcome['kind'];
  /** Other fields the outcome must have. */
  also?: Record<string, unknown>;
}

/** A service the page talks to: started once, on an origin other than the page's. */
interface Target {
  name: string;
  start(): Promise<{ url: string; apiKey: string; stop(): Promise<void> }>;
  cases: BrowserCase[];
}

/** The reference server with CORS for the page's origin only and a rate limit of 3 per key. */
async function startReferenceServer() {
  const store = createMemorySessionStore();
  await store.seed([
    { id: 'br_paused', status: 'paused' },
    { id: 'br_running', status: 'running' },
  ]);
  const app = await createApp({
    store,
    apiKeys: ['browser-key'],
    corsOrigins: [pageOrigin],
    rateLimit: { limit: 3, windowMs: 60_000 },
  });
  const server = await listen(app);
  return { url: server.url, apiKey: 'browser-key', stop: () => server.close() };
}

const targets: Target[] = [
  {
    name: 'Prism mock',
    start: async () => ({ ...(await startPrism()), apiKey: 'browser-key' }),
    cases: [
      { sessionId: 'sess_paused_1', kind: 'resumed' },
      { sessionId: 'sess_running_1', headers: { Prefer: 'code=409, example=notPaused' }, kind: 'not_paused' },
      { sessionId: 'sess_unknown', headers: { Prefer: 'code=404' }, kind: 'not_found' },
      { sessionId: 'sess_paused_1', headers: { Prefer: 'code=401' }, kind: 'unauthorized' },
      // Retry-After is readable cross-origin only when exposed (Access-Control-Expose-Headers).
      { sessionId: 'sess_paused_1', headers: { Prefer: 'code=429' }, kind: 'rate_limited', also: { retryAfterSeconds: 30 } },
    ],
  },
  {
    name: 'reference server (CORS_ORIGINS = the page origin)',
    start: startReferenceServer,
    // In order: three counted requests, a refused key (not counted), then the fourth counted → 429.
    cases: [
      { sessionId: 'br_paused', kind: 'resumed' },
      { sessionId: 'br_paused', kind: 'not_paused' },
      { sessionId: 'br_unknown', kind: 'not_found' },
      { sessionId: 'br_running', apiKey: 'wrong-key', kind: 'unauthorized' },
      // Retry-After is read cross-origin: the server exposes it (Access-Control-Expose-Headers).
      { sessionId: 'br_running', kind: 'rate_limited', also: { retryAfterSeconds: expect.any(Number) } },
    ],
  },
];

let work: string;
let pageServer: Server;
let pageOrigin: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sra-browser-'));
  const { buildDir } = await sharedPackages();
  // platform "browser": esbuild fails on any node: import reachable from the client entry.
  await build({
    entryPoints: [join(buildDir, 'client/dist/index.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    // The build sits in a temp dir: resolve openapi-fetch and ipaddr.js from this repo.
    nodePaths: [join(root, 'node_modules')],
    outfile: join(work, 'client.js'),
    logLevel: 'silent',
  });
  const bundle = readFileSync(join(work, 'client.js'));
  const html = `<!doctype html><meta charset="utf-8"><title>client</title>
<script type="module">
  import * as client from '/client.js';
  window.sessionResume = client;
  window.clientReady = true;
</script>`;
  pageServer = createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(bundle);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html);
  });
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.goto(`${pageOrigin}/`);
  await page.waitForFunction(() => (window as unknown as { clientReady?: boolean }).clientReady === true);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (pageServer ? pageServer.close(r) : r(undefined)));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs `resume` in the page; resolves to the outcome, or to { thrown } with the error's name and code. */
function resumeInPage(baseUrl: string, apiKey: string, c: BrowserCase) {
  return page.evaluate(
    async ([baseUrl, apiKey, sessionId, headers]) => {
      type Lib = typeof import('../../client/index.js');
      const lib = (window as unknown as { sessionResume: Lib }).sessionResume;
      const client = lib.createSessionsClient({ baseUrl, apiKey, maxRetries: 0, timeoutMs: 5000 });
      try {
        return await client.resume(sessionId, headers ? { headers } : {});
      } catch (error) {
        const e = error as { name?: string; code?: string };
        return { thrown: { name: e.name, code: e.code, isClass: error instanceof lib.SessionsClientError } };
      }
    },
    [baseUrl, apiKey, c.sessionId, c.headers] as const,
  );
}

describe('the built client in headless Chromium', () => {
  for (const target of targets) {
    describe(target.name, () => {
      let service: Awaited<ReturnType<Target['start']>>;
      beforeAll(async () => {
        service = await target.start();
        expect(new URL(service.url).origin).not.toBe(pageOrigin);
      }, 60_000);
      afterAll(async () => {
        await service?.stop();
      });

      for (const c of target.cases) {
        it(`${c.sessionId}${c.headers ? ` (${Object.values(c.headers).join(', ')})` : ''} → ${c.kind}`, async () => {
          const outcome = await resumeInPage(service.url, c.apiKey ?? service.apiKey, c);
          expect(outcome).toMatchObject({ kind: c.kind, ...c.also });
        });
      }
    });
  }

  it('cannot call the reference server from an origin it does not allow', async () => {
    const store = createMemorySessionStore();
    await store.seed([{ id: 'br_other', status: 'paused' }]);
    const server = await listen(await createApp({ store, apiKeys: ['k'], corsOrigins: ['https://frontend.example.org'] }));
    try {
      const outcome = await resumeInPage(server.url, 'k', { sessionId: 'br_other', kind: 'resumed' });
      expect(outcome).toEqual({ thrown: { name: 'SessionsClientError', code: 'network', isClass: true } });
      // The POST never ran: the session is still paused.
      expect(await store.resume('br_other')).toMatchObject({ kind: 'resumed' });
    } finally {
      await server.close();
    }
  });

  it('throws SessionsClientError `network` when the other origin does not allow CORS (the preflight is real)', async () => {
    const stub = await startResumeStub();
    try {
      const outcome = await resumeInPage(stub.url, 'k', { sessionId: 'sess_paused_1', kind: 'resumed' });
      expect(outcome).toEqual({ thrown: { name: 'SessionsClientError', code: 'network', isClass: true } });
      // The preflight reached the stub, asking to send Authorization; the POST never did.
      const seen = stub.requests.filter((r) => r.sessionId === 'sess_paused_1');
      expect(seen.map((r) => r.method)).toEqual(['OPTIONS']);
      expect(seen[0]?.headers['access-control-request-headers']).toMatch(/authorization/);
    } finally {
      await stub.stop();
    }
  });
});
