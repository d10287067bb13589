/** The HTTP server's lowered timeouts cut off slow clients (issue #3). */
import { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { contract } from '@session-resume-api/runtime/contract';
import { createHttpServer } from '../../../server/http/create-http-server.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** The body of a raw HTTP answer, checked against the spec's Error schema. */
function errorBodyOf(received: string): unknown {
  const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
  expect(contract.validate('Error', body)).toMatchObject({ ok: true });
  return body;
}

/** Sends `partial` and resolves with what the server wrote before closing the connection. */
async function sendAndWait(port: number, partial: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.connect(port, '127.0.0.1', () => socket.write(partial));
  });
}

describe('createHttpServer', () => {
  it('has timeouts lower than Node defaults by default', () => {
    server = createHttpServer((_req, res) => res.end());
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
  });

  it('answers 408 and closes a connection whose headers do not complete in time', async () => {
    server = createHttpServer((_req, res) => res.end('ok'), { headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const received = await sendAndWait(port, 'POST /v1/sessions/x/resume HTTP/1.1\r\nHost: x\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(errorBodyOf(received)).toMatchObject({ error: 'request_timeout' });
  });

  it('answers 408 when the body does not complete within the request timeout', async () => {
    server = createHttpServer((req, res) => req.resume().on('end', () => res.end('ok')), {
      headersTimeoutMs: 500,
      requestTimeoutMs: 1000,
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const received = await sendAndWait(port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{');
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(errorBodyOf(received)).toMatchObject({ error: 'request_timeout' });
  });

  it('answers unparsable HTTP with 400 and oversized headers with 431, in the Error shape', async () => {
    server = createHttpServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const garbage = await sendAndWait(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
    expect(errorBodyOf(garbage)).toMatchObject({ error: 'bad_request' });
    const huge = await sendAndWait(port, `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
    expect(errorBodyOf(huge)).toMatchObject({ error: 'header_too_large' });
  });

  it('writes no error answer into an answer the app has begun (unparsable bytes pipelined behind a request)', async () => {
    let release = () => {};
    const begun = new Promise<void>((resolveBegun) => {
      server = createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first half ');
        resolveBegun();
        release = () => res.end('second half');
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server!.address() as AddressInfo;
    const received = sendAndWait(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n');
    await begun;
    setTimeout(() => release(), 200);
    // As Node's own handler does: the connection is dropped rather than answered twice.
    expect(await received).not.toMatch(/HTTP\/1\.1 400/);
  });
});
