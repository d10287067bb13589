/**
 * Serves the example page: index.html and app.ts bundled for the browser by esbuild (once, at
 * start). The page is on its own origin, so its calls to the API are cross-origin, as in a
 * real deployment: the sandbox's open CORS is what lets them through.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));

/** A serving page: its origin and a close. */
export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/**
 * Bundles the page and serves it on 127.0.0.1 (`port` 0 picks a free one).
 * @example const page = await startPageServer(); // open `${page.origin}/?api=…&key=sandbox_…`
 */
export async function startPageServer(port = 0): Promise<PageServer> {
  const bundle = await build({
    entryPoints: [`${here}app.ts`],
    bundle: true,
    format: 'esm',
    // platform browser: the build fails if the page pulls in any Node built-in.
    platform: 'browser',
    target: 'chrome120',
    // In this repository the package resolves to its TypeScript sources.
    conditions: ['source'],
    write: false,
    logLevel: 'silent',
  });
  const app = bundle.outputFiles[0]?.contents ?? new Uint8Array();
  const html = readFileSync(`${here}index.html`);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(app);
    if (path === '/' || path === '/index.html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
