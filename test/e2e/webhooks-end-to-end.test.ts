/**
 * End to end over HTTPS on loopback (self-signed certificate), issue #5: the reference server
 * process resumes sessions and its delivery engine delivers `session.resumed` to a receiver built with
 * the kit on Redis; the CLI's `webhook send` and `webhook check` reach the same receiver.
 * Source spec §6: 200 within 5 s, duplicates possible, dedupe by event + session.id + timestamp.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWebhookReceiver, generateUrlToken, type WebhookReceiver } from '../../client/webhooks/index.js';
import { createRedisEventStore } from '../../client/webhooks/redis/index.js';
import { contract } from '@session-resume-api/runtime/contract';
import type { ReceivedEvent } from '../../client/webhooks/index.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { getTestCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const API_KEY = 'e2e-key';
const PAUSED = ['e2e_p1', 'e2e_p2', 'e2e_p3', 'e2e_p4', 'e2e_p5'];

const processed: ReceivedEvent[] = [];
const bodies: string[] = [];
/** Answers 500 to this many requests before handing them to the receiver (a failing receiver). */
let failNext = 0;

let receiver: WebhookReceiver;
let https: Server;
let hookUrl: string;
let server: ServerProcess;
let prefix: string;

beforeAll(async () => {
  const certificate = getTestCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-webhooks-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  const sessionsFile = join(dir, 'sessions.json');
  writeFileSync(sessionsFile, JSON.stringify(PAUSED.map((id) => ({ id, status: 'paused' }))));

  prefix = uniquePrefix('e2e-webhooks');
  const token = generateUrlToken();
  receiver = createWebhookReceiver({
    store: createRedisEventStore({ url: inject('redisUrl'), prefix }),
    urlToken: token,
    onEvent: async (event) => {
      processed.push(event);
    },
  });
  https = createServer({ cert: certificate.cert, key: certificate.key }, (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    if (failNext > 0) {
      failNext--;
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(500).end();
      });
      return;
    }
    // Record what arrived; the receiver's own listeners get the same chunks.
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => bodies.push(body));
    void receiver.handler(req, res);
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  hookUrl = `https://localhost:${(https.address() as AddressInfo).port}/webhooks/session-events/${token}`;

  server = await startServerProcess({
    API_KEYS: API_KEY,
    SESSIONS_FILE: sessionsFile,
    WEBHOOK_URL: hookUrl,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_CA_FILE: caFile,
    // Short retries: the default schedule waits 5 s, then 5 min, before the second and third attempts.
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms,200ms',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  https?.closeAllConnections();
  await new Promise((resolve) => https?.close(resolve));
  if (prefix) await deletePrefix(inject('redisUrl'), prefix);
});

const resume = (id: string) => fetch(`${server.url}/v1/sessions/${id}/resume`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
const eventsFor = (id: string) => processed.filter((e) => e.session?.id === id);

/** Runs the CLI as a process; resolves with its exit code and output. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/bin/session-resume-api.js', ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

describe('reference server → delivery engine → receiver kit, over HTTPS', () => {
  it('delivers one valid session.resumed per successful resume, and none for a not_paused', async () => {
    expect((await resume('e2e_p1')).status).toBe(200);
    await waitFor(() => eventsFor('e2e_p1').length === 1, { what: 'the session.resumed event' });
    const [event] = eventsFor('e2e_p1');
    expect(contract.validate('SessionEvent', event).ok).toBe(true);
    expect(event).toMatchObject({ event: 'session.resumed', session: { id: 'e2e_p1' } });

    const again = await resume('e2e_p1');
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('not_paused');
    // A marker event after the not_paused proves the queue drained without a second e2e_p1 event.
    expect((await resume('e2e_p2')).status).toBe(200);
    await waitFor(() => eventsFor('e2e_p2').length === 1, { what: 'the e2e_p2 event' });
    expect(eventsFor('e2e_p1')).toHaveLength(1);
  });

  it('keeps the identity across the delivery retries, so a receiver failing twice processes the event once', async () => {
    const before = bodies.length;
    failNext = 2;
    expect((await resume('e2e_p3')).status).toBe(200);
    await waitFor(() => eventsFor('e2e_p3').length === 1, { timeoutMs: 30_000, what: 'the retried event' });
    const attempts = bodies.slice(before).filter((b) => b.includes('"e2e_p3"'));
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts).size).toBe(1);
    expect(eventsFor('e2e_p3')).toHaveLength(1);
  });
});

describe('CLI webhook commands against the receiver', () => {
  it('`webhook send --times 10` delivers ten identical events; the receiver processes one', async () => {
    const run = await cli([
      'webhook',
      'send',
      hookUrl,
      '--event',
      'session.resumed',
      '--session',
      'cli_s1',
      '--timestamp',
      '2026-11-21T18:00:00.000Z',
      '--times',
      '10',
      '--concurrency',
      '5',
      '--insecure-localhost',
    ]);
    expect(run.code).toBe(0);
    await waitFor(() => eventsFor('cli_s1').length === 1, { what: 'the CLI event' });
    // Let any wrongly accepted duplicate reach onEvent before counting.
    await new Promise((r) => setTimeout(r, 500));
    expect(eventsFor('cli_s1')).toHaveLength(1);
  });

  it('`webhook check --insecure-localhost` passes every line', async () => {
    const run = await cli(['webhook', 'check', hookUrl, '--insecure-localhost']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/fail/i);
  });

  it('a wrong URL token fails with exit 1 and records nothing', async () => {
    const wrong = hookUrl.replace(/[^/]+$/, generateUrlToken());
    const run = await cli(['webhook', 'send', wrong, '--event', 'session.resumed', '--session', 'cli_wrong', '--insecure-localhost']);
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/404/);
    expect(eventsFor('cli_wrong')).toHaveLength(0);
  });

  it('an http:// URL is refused with exit 1 without --insecure-localhost (HTTPS only)', async () => {
    // With --insecure-localhost, plain http:// is allowed for loopback only (test/e2e/cli-webhook-local.test.ts).
    const run = await cli(['webhook', 'send', hookUrl.replace('https://', 'http://'), '--event', 'e', '--session', 'cli_http']);
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/HTTPS/);
    expect(eventsFor('cli_http')).toHaveLength(0);
  });
});
