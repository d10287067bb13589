/** Graceful close: in-flight answers finish, kept-alive connections do not hold the server open. */
import { Socket, type AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeHttpServer } from '../../../server/http/close-http-server.js';
import { createHttpServer } from '../../../server/http/create-http-server.js';
import { waitFor } from '../../helpers/wait-for.js';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** /slow waits for `release()`; anything else answers at once. A keep-alive timeout of 60 s. */
async function startServer() {
  let release = () => {};
  const slowArrived = new Promise<void>((arrived) => {
    const app = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== '/slow') return void res.end('fast');
      release = () => res.end('slow');
      arrived();
    };
    server = createHttpServer(app, { keepAliveTimeoutMs: 60_000 });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server!.address() as AddressInfo).port, slowArrived, release: () => release() };
}

/** A raw connection: everything it received, and whether the server closed it. */
function connect(port: number) {
  const socket = new Socket();
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.connect(port, '127.0.0.1');
  return { socket, ended, received: () => received };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe('closeHttpServer', () => {
  it('lets the in-flight answer finish, closes idle connections, and ends a kept-alive one with Connection: close on its next answer', async () => {
    const { port, slowArrived, release } = await startServer();
    const idle = connect(port);
    idle.socket.write(get('/fast'));
    await waitFor(() => idle.received().endsWith('fast'), { what: 'the first answer' });
    const busy = connect(port);
    busy.socket.write(get('/slow'));
    await slowArrived;

    let closed = false;
    // No sweep during this test: only the answers' Connection: close can end the busy connection.
    const closing = closeHttpServer(server!, { idleSweepMs: 600_000 }).then(() => (closed = true));
    await idle.ended; // idle at the close: closed at once
    expect(closed).toBe(false); // the slow answer is still owed

    release();
    await waitFor(() => busy.received().endsWith('slow'), { what: 'the slow answer' });
    busy.socket.write(get('/fast')); // the client reuses its kept-alive connection
    await busy.ended; // after that answer, though the keep-alive timeout is 60 s
    await closing;
    const answers = busy.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200[\s\S]*\r\nConnection: close\r\n[\s\S]*fast$/i);
  });

  it('closes a connection that became idle after the close began, without waiting for the keep-alive timeout', async () => {
    const { port, slowArrived, release } = await startServer();
    const busy = connect(port);
    busy.socket.write(get('/slow'));
    await slowArrived;
    const closing = closeHttpServer(server!, { idleSweepMs: 20 });
    release();
    await busy.ended;
    await closing;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200[\s\S]*slow$/);
    // Started before the close: its answer may keep the connection alive; the sweep closed it.
    expect(busy.received()).not.toMatch(/Connection: close/i);
  });
});
