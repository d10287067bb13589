/**
 * Webhooks from the sandbox: every event reaches the caller's feed and, with WEBHOOK_URL,
 * a plain-HTTP receiver on loopback; such a URL is refused outside sandbox mode, and a
 * non-loopback http:// URL is refused in it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../helpers/listen.js';
import { runServerExpectingExit, startSandboxProcess, type SandboxProcess } from '../../helpers/sandbox-process.js';
import { waitFor } from '../../helpers/wait-for.js';

let receiver: Listening;
const received: { path: string; body: string }[] = [];
let sandbox: SandboxProcess;

beforeAll(async () => {
  receiver = await listen((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  const port = new URL(receiver.url).port;
  sandbox = await startSandboxProcess({ WEBHOOK_URL: `http://localhost:${port}/hooks/t0ken` });
}, 40_000);
afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
});

describe('sandbox webhooks', () => {
  it('delivers each event to the loopback receiver, the same payload as in the feed', async () => {
    const key = `sandbox_${randomUUID()}`;
    const res = await fetch(`${sandbox.url}/v1/sessions/sess_paused_2/resume`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    await waitFor(() => received.length === 1, { what: 'the webhook delivery' });
    const feed = (await (await fetch(`${sandbox.url}/_sandbox/events`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      events: { payload: unknown }[];
    };
    expect(received[0]?.path).toBe('/hooks/t0ken');
    expect(JSON.parse(received[0]!.body)).toEqual(feed.events[0]?.payload);
  });

  it('recover emits the events of a window again, once, on the live stream listen reads; a dry run changes nothing', async () => {
    const key = `sandbox_${randomUUID()}`;
    const auth = { authorization: `Bearer ${key}` };
    const since = new Date(Date.now() - 1000).toISOString();
    expect((await fetch(`${sandbox.url}/v1/sessions/sess_paused_1/resume`, { method: 'POST', headers: auth })).status).toBe(200);
    const until = new Date(Date.now() + 1000).toISOString();
    const stream = await fetch(`${sandbox.url}/_sandbox/events`, { headers: { ...auth, accept: 'text/event-stream' } });
    const reader = stream.body!.getReader();
    let text = '';
    const recover = async (body: object) =>
      (
        await fetch(`${sandbox.url}/_sandbox/recover`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json() as Promise<{
        matched: number;
        requeued: number;
        events: { webhookId: string }[];
      }>;
    const dry = await recover({ since, until, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, matched: 1, requeued: 0 });
    const feed = async () => ((await (await fetch(`${sandbox.url}/_sandbox/events`, { headers: auth })).json()) as { events: { webhookId: string }[] }).events;
    expect(await feed()).toHaveLength(1);
    expect(await recover({ since, until })).toMatchObject({ matched: 1, requeued: 1 });
    expect(await recover({ since, until })).toMatchObject({ matched: 1, requeued: 0 });
    const events = await feed();
    expect(events.map((e) => e.webhookId)).toEqual([dry.events[0]!.webhookId, dry.events[0]!.webhookId]);
    while (!text.includes('id: 2\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain(dry.events[0]!.webhookId);
    await reader.cancel();
    const bad = await fetch(`${sandbox.url}/_sandbox/recover`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ since: until, until: since }),
    });
    expect(bad.status).toBe(400);
  });

  it('a forced answer emits nothing', async () => {
    const before = received.length;
    const key = `sandbox_${randomUUID()}`;
    await fetch(`${sandbox.url}/v1/sessions/sess_paused_1/resume`, { method: 'POST', headers: { authorization: `Bearer ${key}`, prefer: 'code=200' } });
    await fetch(`${sandbox.url}/v1/sessions/sess_paused_3/resume`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    await waitFor(() => received.length === before + 1, { what: 'the one real delivery' });
    expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ session: { id: 'sess_paused_3' } });
  });
});

describe('what sandbox mode changes, and only there', () => {
  it('normal mode still refuses an http://localhost WEBHOOK_URL', async () => {
    const { code, output } = await runServerExpectingExit([], { WEBHOOK_URL: 'http://localhost:9/hook' });
    expect(code).toBe(1);
    expect(output).toMatch(/WEBHOOK_URL is refused: Webhook URLs must use HTTPS/);
  });

  it('sandbox mode refuses plain http:// to a host that is not loopback', async () => {
    const { code, output } = await runServerExpectingExit(['--sandbox'], { WEBHOOK_URL: 'http://hooks.example.com/x' });
    expect(code).toBe(1);
    expect(output).toMatch(/WEBHOOK_URL is refused/);
  });

  it('sandbox mode refuses REDIS_URL: its worlds live in memory', async () => {
    const { code, output } = await runServerExpectingExit(['--sandbox'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(code).toBe(1);
    expect(output).toMatch(/unset REDIS_URL to run --sandbox/);
  });
});
