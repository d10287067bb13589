/**
 * Memory store, memory delivery (not durable): on SIGTERM a pending event gets its final
 * attempt and its drop is logged, even while a slow client (headers sent, body trickling)
 * holds the HTTP server open.
 */
import { request } from 'node:http';
import { afterAll, expect, it } from 'vitest';
import {
  API_KEY,
  postResume,
  startHttpsReceiver,
  startServerProcess,
  writeFixtures,
  type HttpsReceiver,
  type ServerProcess,
} from '../../helpers/delivery-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

let receiver: HttpsReceiver | undefined;
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
});

it('SIGTERM with a slow client open: the pending event gets a final attempt and its drop is logged', async () => {
  receiver = await startHttpsReceiver((_request, res) => void res.writeHead(503).end('{}'));
  const files = writeFixtures(receiver, ['pending', 'slow']);
  server = await startServerProcess({
    API_KEYS: API_KEY,
    SESSIONS_FILE: files.sessionsFile,
    WEBHOOK_URL: `${receiver.origin}/hook`,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_CA_FILE: files.caFile,
  });
  expect((await postResume(server.url, 'pending')).status).toBe(200);
  await waitFor(() => receiver!.requests.length >= 1, { what: 'the first attempt' });

  // A slow client: headers sent, the body never completes.
  const { hostname, port } = new URL(server.url);
  const slow = request({
    host: hostname,
    port,
    method: 'POST',
    path: '/v1/sessions/slow/resume',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'content-length': '2' },
  });
  slow.on('error', () => undefined);
  slow.write('{');
  await new Promise((r) => setTimeout(r, 200));

  const before = receiver.requests.length;
  const code = await server.stop('SIGTERM');
  slow.destroy();
  expect(receiver.requests.length).toBeGreaterThan(before);
  expect(server.output()).toMatch(/dropped/);
  expect(server.output()).not.toMatch(/shutdown took too long/);
  expect(code).toBe(0);
}, 60_000);
