/**
 * `session-resume-api listen --forward-to` as a developer runs it: a real sandbox process, a
 * plain-HTTP receiver on 127.0.0.1 (no flag needed), deliveries signed with the printed secret
 * under the feed entry's webhook-id, retried by the engine's rules; a feed that drops is
 * followed again with Last-Event-ID; Ctrl-C ends it with exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSignatureVerifier } from '../../client/webhooks/index.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Listener {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}
function listen(...args: string[]): Listener {
  const proc = spawn(process.execPath, ['cli/bin/session-resume-api.js', 'listen', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return { proc, output: () => log, exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))) };
}

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}
async function startServer(handle: (req: Delivery, res: ServerResponse, url: string) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handle({ headers: req.headers, body }, res, req.url ?? '/'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});
afterAll(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});
const closeLater = (server: Server) =>
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

describe('listen against the sandbox', () => {
  let sandbox: SandboxProcess;

  it('prints the generated secret, forwards each resume signed under the feed entry webhook-id, retries a 500, stops on Ctrl-C', async () => {
    sandbox = await startSandboxProcess();
    cleanup.push(() => sandbox.stop());
    const deliveries: Delivery[] = [];
    const { server, origin } = await startServer((req, res) => {
      deliveries.push(req);
      res.writeHead(deliveries.length === 1 ? 500 : 200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
    closeLater(server);
    const key = `sandbox_listen_${Date.now()}`;
    const cli = listen('--forward-to', `${origin}/hooks`, '--base-url', sandbox.url, '--api-key', key, '--retry-schedule', '0,300ms');
    cleanup.push(() => cli.proc.kill('SIGKILL'));
    await waitFor(() => cli.output().includes('connected to'), { what: `listen connected\n${cli.output()}` });
    const secret = /Signing secret: (whsec_\S+)/.exec(cli.output())?.[1];
    expect(cli.output()).toContain('(generated for this run: give it to your receiver)');

    const resumed = await fetch(`${sandbox.url}/v1/sessions/sess_paused_1/resume`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(resumed.status).toBe(200);
    await waitFor(() => deliveries.length === 2, { what: `two attempts\n${cli.output()}` });

    const feed = (await (await fetch(`${sandbox.url}/_sandbox/events`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      events: { webhookId: string; payload: unknown }[];
    };
    const verify = createSignatureVerifier(secret!);
    for (const delivery of deliveries) {
      expect(delivery.headers['webhook-id']).toBe(feed.events[0]?.webhookId);
      expect(verify(delivery.body, delivery.headers)).toMatchObject({ ok: true });
      expect(JSON.parse(delivery.body)).toEqual(feed.events[0]?.payload);
    }
    await waitFor(() => / {2}200 {2}\d+ ms\n/.test(cli.output()), { what: 'the 200 line' });
    expect(cli.output()).toMatch(/^\S+Z {2}session\.resumed {2}sess_paused_1 {2}500 {2}\d+ ms {2}retry 2 in 300ms$/m);
    expect(cli.output()).toMatch(/^\S+Z {2}session\.resumed {2}sess_paused_1 {2}200 {2}\d+ ms$/m);

    cli.proc.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('stopped: 1 delivered, 0 dead, 0 still retrying when stopped');
  }, 60_000);

  it('prints a key and a secret it was given masked (first 4 characters after the prefix), and the target without its URL token', async () => {
    sandbox = await startSandboxProcess();
    cleanup.push(() => sandbox.stop());
    const key = `sandbox_given_${Date.now()}`;
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const token = 'Zr3xQ8pL0vTtA9sD2fG5hJ7kW1mN4bV6cX8zY0uI2oE';
    const cli = listen('--forward-to', `http://127.0.0.1:9/webhooks/session-events/${token}`, '--base-url', sandbox.url, '--api-key', key, '--secret', secret);
    cleanup.push(() => cli.proc.kill('SIGKILL'));
    await waitFor(() => cli.output().includes('connected to'), { what: `listen connected\n${cli.output()}` });
    expect(cli.output()).toContain(`(sandbox key sandbox_give…) to http://127.0.0.1:9/webhooks/session-events/…`);
    expect(cli.output()).toContain(`Signing secret: ${secret.slice(0, 10)}…  (the one you gave)`);
    for (const hidden of [key, secret, token]) expect(cli.output()).not.toContain(hidden);
    cli.proc.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  }, 60_000);

  it('refuses a key that is not a sandbox key, and a non-loopback http:// target (exit 2)', async () => {
    const wrong = listen('--forward-to', 'http://127.0.0.1:9/h', '--api-key', 'dev_key');
    expect(await wrong.exited).toBe(2);
    expect(wrong.output()).toContain('--api-key must be a sandbox_ key');
    const remote = listen('--forward-to', 'http://hooks.example.org/h', '--api-key', 'sandbox_x');
    expect(await remote.exited).toBe(2);
    expect(remote.output()).toContain('Webhook URLs must use HTTPS');
  }, 30_000);
});

describe('listen across a dropped feed', () => {
  it('reconnects with Last-Event-ID and forwards what came before and after the drop, each once', async () => {
    const feedRequests: IncomingHttpHeaders[] = [];
    const entry = (sequence: number) =>
      `event: session-event\nid: ${sequence}\ndata: ${JSON.stringify({
        sequence,
        webhookId: `msg_feed_${sequence}`,
        dedupeKey: '0'.repeat(64),
        payload: { event: 'session.resumed', session: { id: `s${sequence}` }, timestamp: '2026-11-21T16:00:00.000Z' },
      })}\n\n`;
    const feed = await startServer((req, res) => {
      feedRequests.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first stream carries event 1 and drops; the second, event 2, and stays open.
      if (feedRequests.length === 1) res.end(`retry: 100\n\n${entry(1)}`);
      else res.write(entry(2));
    });
    closeLater(feed.server);
    const ids: string[] = [];
    const target = await startServer((req, res) => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
    closeLater(target.server);
    const cli = listen('--forward-to', `${target.origin}/h`, '--base-url', feed.origin, '--api-key', 'sandbox_feed');
    cleanup.push(() => cli.proc.kill('SIGKILL'));
    await waitFor(() => ids.length === 2, { what: `two forwards\n${cli.output()}` });
    expect(ids.sort()).toEqual(['msg_feed_1', 'msg_feed_2']);
    expect(feedRequests[0]?.['last-event-id']).toBeUndefined();
    expect(feedRequests[1]?.['last-event-id']).toBe('1');
    expect(feedRequests[1]?.authorization).toBe('Bearer sandbox_feed');
    expect(cli.output()).toMatch(/reconnected to .* \(after event 1\)/);
    cli.proc.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  }, 30_000);
});
