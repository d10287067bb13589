/**
 * The framework examples run as written: fastify (raw body through a `parseAs: 'buffer'`
 * parser), Hono on @hono/node-server (`receiver.fetch`), and the Next.js App Router route module
 * (its `POST` called with real `Request`s, without installing Next.js). Each gets real signed
 * deliveries, the same one three times: the handler runs once; a wrong signature gets 401,
 * a wrong URL token 404, a GET 405.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { generateUrlToken } from '../../client/webhooks/index.js';
import { getFreePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const token = generateUrlToken();

/** A signed delivery of one event: its body and headers. */
function delivery(sessionId: string, options: { secret?: string } = {}) {
  const body = JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: new Date().toISOString() });
  const at = new Date();
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret ?? secret).sign(id, at, body),
  };
  return { body, headers };
}

/** Starts an example with tsx and the in-repo source of the package; resolves once it listens. */
async function start(example: string): Promise<{ base: string; out: () => string; child: ChildProcess }> {
  const port = await getFreePort();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', `examples/${example}/server.ts`], {
    cwd: root,
    env: { ...process.env, PORT: String(port), WEBHOOK_URL_TOKEN: token, WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await waitFor(() => out.includes('"listening"'), { timeoutMs: 30_000 });
  return { base: `http://127.0.0.1:${port}`, out: () => out, child };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}

const handledLines = (out: string, sessionId: string) =>
  out.split('\n').filter((l) => l.includes('"session event"') && l.includes(`"sessionId":"${sessionId}"`)).length;

describe.each(['fastify-receiver', 'hono-receiver'])('examples/%s', (example) => {
  it('handles a signed delivery sent three times once; 401, 404 and 405 as the receiver answers', { timeout: 60_000 }, async () => {
    const { base, out, child } = await start(example);
    const url = `${base}/webhooks/session-events/${token}`;
    const sessionId = `sess_${example}`;
    const { body, headers } = delivery(sessionId);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, { method: 'POST', headers, body });
      answers.push({ status: res.status, duplicate: ((await res.json()) as { duplicate?: boolean }).duplicate });
    }
    expect(answers).toEqual([
      { status: 200, duplicate: false },
      { status: 200, duplicate: true },
      { status: 200, duplicate: true },
    ]);
    const forged = delivery(`${sessionId}_forged`, { secret: `whsec_${randomBytes(32).toString('base64')}` });
    expect((await fetch(url, { method: 'POST', headers: forged.headers, body: forged.body })).status).toBe(401);
    expect((await fetch(`${base}/webhooks/session-events/not-the-token-not-the-token`, { method: 'POST', headers, body })).status).toBe(404);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await waitFor(() => handledLines(out(), sessionId) === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(handledLines(out(), sessionId)).toBe(1);
    expect(handledLines(out(), `${sessionId}_forged`)).toBe(0);
    expect(await stop(child)).toBe(0);
  });
});
