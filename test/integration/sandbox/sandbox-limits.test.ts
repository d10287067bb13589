/**
 * A sandbox world is bounded over HTTP (x-decisions: sandbox-session-limit): a PUT past the
 * limit is a 409 in the Error shape naming the limit, and GET /_sandbox/sessions pages.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '@session-resume-api/runtime/contract';
import type { SchemaName } from '@session-resume-api/runtime/types';
import { createSandboxClient } from '../../../client/sandbox/index.js';
import { createApp } from '../../../server/app.js';
import { createHttpServer } from '../../../server/http/create-http-server.js';
import { sandboxSpecPath } from '../../../server/sandbox/control-router.js';
import { createSandbox } from '../../../server/sandbox/index.js';
import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';

const sandboxContract = loadContract(sandboxSpecPath);
const sandbox = createSandbox({ seeds: [{ id: 'seed_1', status: 'paused' }], maxSessions: 150 });
const server = createHttpServer(await createApp({ store: createMemorySessionStore(), apiKeys: ['unused'], sandbox }));
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const auth = { authorization: 'Bearer sandbox_limits_http' };
const put = (id: string, status = 'paused') =>
  fetch(`${base}/_sandbox/sessions/${id}`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ status }) });

describe('sandbox limits over HTTP', () => {
  it('answers 409 sandbox_world_full past the limit, naming it; pages the list; the client reads every page', async () => {
    for (let i = 0; i < 149; i++) expect((await put(`s_${String(i).padStart(3, '0')}`)).status).toBe(200);
    const full = await put('one_too_many');
    expect(full.status).toBe(409);
    const body = await full.json();
    expect(sandboxContract.validate('Error' as SchemaName, body).ok).toBe(true);
    expect(body).toMatchObject({ error: 'sandbox_world_full', message: expect.stringContaining('150 sessions') });
    expect((await put('s_000', 'running')).status).toBe(200);

    const first = (await (await fetch(`${base}/_sandbox/sessions`, { headers: auth })).json()) as { sessions: { id: string }[]; next?: string };
    expect(sandboxContract.validate('SessionList' as SchemaName, first).ok).toBe(true);
    expect(first.sessions).toHaveLength(100);
    expect(first.next).toBe(first.sessions[99]!.id);
    const second = (await (await fetch(`${base}/_sandbox/sessions?limit=100&after=${first.next}`, { headers: auth })).json()) as {
      sessions: unknown[];
      next?: string;
    };
    expect([second.sessions.length, second.next]).toEqual([50, undefined]);
    expect((await fetch(`${base}/_sandbox/sessions?limit=0`, { headers: auth })).status).toBe(400);

    const client = createSandboxClient({ baseUrl: base, apiKey: 'sandbox_limits_http' });
    expect(await client.sessions()).toHaveLength(150);
  });
});
