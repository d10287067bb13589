/** `GET /metrics` on its own port, so the API's keys, rate limit and request log never apply to scrapes. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Options of `startMetricsListener`. */
export interface MetricsListenerOptions {
  registry: Registry;
  /** TCP port (0 picks a free one). */
  port: number;
  /** Interface to bind (the server's `HOST`). */
  host: string;
}

/** A started metrics listener. */
export interface MetricsListener {
  /** e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  port: number;
  /** Stops accepting and closes open connections. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port`: `GET /metrics` (and `/`) answer the registry's text; anything else 404.
 * @example const metrics = await startMetricsListener({ registry, port: 9464, host: '127.0.0.1' });
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const { registry } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || (path !== '/metrics' && path !== '/')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`Metrics could not be collected: ${(err as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
