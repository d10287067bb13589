/**
 * Real HTTPS on loopback for tests: a self-signed certificate made at test time with the
 * `openssl` CLI, and a recording HTTPS receiver that listens on 127.0.0.1, port 0.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PEM certificate and its key; `cert` doubles as the CA to trust (it is self-signed). */
export interface TestCertificate {
  cert: string;
  key: string;
}

let cached: TestCertificate | undefined;

/**
 * A self-signed EC P-256 certificate for `localhost` and `127.0.0.1` (subjectAltName,
 * RFC 6125 §6), valid 1 day, made once per test process.
 */
export function getTestCertificate(): TestCertificate {
  cached ??= makeCertificate('localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  return cached;
}

/**
 * A new self-signed EC P-256 certificate with common name `commonName` (and `extension`, an
 * `openssl -addext` value, when given), valid 1 day, made with `/usr/bin/openssl`.
 */
export function makeCertificate(commonName: string, extension?: string): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'sra-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-nodes',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-keyout',
        keyPath,
        '-out',
        certPath,
        '-days',
        '1',
        '-subj',
        `/CN=${commonName}`,
        ...(extension ? ['-addext', extension] : []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One request as the receiver saw it, body fully read as UTF-8 text. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The SNI name the client sent (undefined when it sent none, e.g. for an IP literal). */
  servername: string | undefined;
  /** Date.now() when the body had been read. */
  receivedAt: number;
}

/** Answers one recorded request; may be async (e.g. to wait before answering). */
export type ReceiverHandler = (request: RecordedRequest, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

/** A running HTTPS receiver. */
export interface HttpsReceiver {
  /** https://127.0.0.1:<port> or https://[::1]:<port> (no trailing slash). */
  origin: string;
  port: number;
  /** Every request received so far, in arrival order. */
  requests: RecordedRequest[];
  /** The certificate it serves (trust `cert` as the CA). */
  certificate: TestCertificate;
  /** Closes the server and destroys open connections. */
  close(): Promise<void>;
}

/** Default handler: answers 200 with `{"received":true,"duplicate":false}`. */
const answer200: ReceiverHandler = (_request, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"duplicate":false}');
};

/** Starts an HTTPS server on 127.0.0.1:0 (or `host`, e.g. '::1') with the test certificate that records each request. */
export async function startHttpsReceiver(handler: ReceiverHandler = answer200, { host = '127.0.0.1' }: { host?: string } = {}): Promise<HttpsReceiver> {
  const certificate = getTestCertificate();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: (req.socket as TLSSocket).servername || undefined,
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res, req)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Handshake failures (a client that refuses our certificate) are expected in some tests.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    certificate,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
