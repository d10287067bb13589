/**
 * The recording proxy: answers on a local port and passes every request to the target as it
 * comes, streaming both ways (bytes are forwarded as they arrive, never held back for the
 * checks), while keeping a copy of each body up to a cap; when an answer ends, the exchange goes
 * to `onExchange`. One instance stands in front of the API, another in front of a webhook
 * receiver.
 */
import { createServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { headerList, type Exchange, type ExchangeKind } from './exchange.js';

/** Body bytes kept per request and per answer for the checks (the contract's bodies are at most 100 KB). */
export const CAPTURE_LIMIT_BYTES = 128 * 1024;

/** Options of `startWatchProxy`. */
export interface WatchProxyOptions {
  /** Base URL requests are passed to (its path is prefixed to theirs). */
  target: string;
  /** Port to listen on; 0 for a free one. */
  port: number;
  /**
   * Address to listen on.
   * @defaultValue `127.0.0.1`
   */
  host?: string;
  /** What the traffic is: the API, or webhook deliveries. */
  kind: ExchangeKind;
  /** Called once per exchange when its answer has ended or failed. */
  onExchange: (exchange: Exchange) => void;
}

/** A running proxy. */
export interface WatchProxy {
  url: string;
  close(): Promise<void>;
}

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** Starts the proxy; resolves once it listens. */
export function startWatchProxy(options: WatchProxyOptions): Promise<WatchProxy> {
  const base = new URL(options.target);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const server = createServer({ requireHostHeader: false }, (req, res) => forward(req, res, base, agent, options));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${options.host ?? '127.0.0.1'}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
            agent.destroy();
          }),
      });
    });
  });
}

/** Keeps the first `CAPTURE_LIMIT_BYTES` of a stream; `text()` is undefined past the cap. */
function capture() {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk: Buffer) {
      size += chunk.length;
      if (size <= CAPTURE_LIMIT_BYTES) chunks.push(chunk);
    },
    text: () => (size <= CAPTURE_LIMIT_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined),
  };
}

/**
 * Headers to pass on, without the hop-by-hop ones and with `host` replaced when given: a name
 * sent several times keeps every value (node:http writes an array as repeated lines).
 */
function forwardable(raw: readonly string[], host?: string): Record<string, string | string[]> {
  const out: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || (host !== undefined && lower === 'host')) continue;
    const key = names.get(lower) ?? name;
    names.set(lower, key);
    (out[key] ??= []).push(raw[i + 1] as string);
  }
  if (host !== undefined) out.host = [host];
  return Object.fromEntries(Object.entries(out).map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]));
}

function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

function forward(req: IncomingMessage, res: ServerResponse, base: URL, agent: HttpAgent, options: WatchProxyOptions): void {
  const startedAt = Date.now();
  const sent = capture();
  const received = capture();
  const prefix = base.pathname.replace(/\/+$/, '');
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send({
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port,
    method: req.method,
    path: `${prefix}${req.url ?? '/'}`,
    headers: forwardable(req.rawHeaders, base.host),
    agent,
  });
  let answer: IncomingMessage | undefined;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    options.onExchange({
      kind: options.kind,
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      startedAt,
      endedAt: Date.now(),
      requestHeaders: headerList(pairs(req.rawHeaders)),
      requestBody: sent.text(),
      status: answer?.statusCode,
      responseHeaders: headerList(pairs(answer?.rawHeaders ?? [])),
      responseBody: answer ? received.text() : undefined,
    });
  };
  upstream.on('response', (incoming) => {
    answer = incoming;
    res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, forwardable(incoming.rawHeaders));
    incoming.on('data', (chunk: Buffer) => received.add(chunk));
    incoming.pipe(res);
    incoming.on('end', finish);
  });
  // The target could not be reached or broke off: the caller's connection is reset, never
  // answered in the target's name, so the caller sees a connection failure as it would without
  // watch (a made-up 502 would count as a slow-down status for the service's endpoint circuit).
  upstream.on('error', () => {
    req.socket.resetAndDestroy();
    finish();
  });
  // The caller went away before the answer ended: stop the upstream request too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  // Small exchanges: no Nagle wait between the header and body segments.
  upstream.setNoDelay(true);
  // A request without a body ends at once: node:http frames it with Content-Length: 0, never chunked
  // (a chunked request declares a body, which the service judges by its Content-Type).
  const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  if (bodiless) {
    req.resume();
    upstream.end();
    return;
  }
  req.on('data', (chunk: Buffer) => sent.add(chunk));
  req.pipe(upstream);
}
