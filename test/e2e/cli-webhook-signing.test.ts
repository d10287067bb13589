/**
 * `webhook send` and `webhook check` against a receiver kit that checks Standard Webhooks
 * signatures (plain http:// on loopback): unsigned deliveries get 401 with advice to pass
 * --secret; with the receiver's secret (flag or SESSION_RESUME_WEBHOOK_SECRET) they pass.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventStore, createWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../client/webhooks/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = `whsec_${Buffer.from('cli-signing-test-secret-0123456789ab').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another-secret-entirely-0123456789ab').toString('base64')}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const cli = (args: string[], env: Record<string, string> = {}) =>
  new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      ['cli/bin/session-resume-api.js', ...args],
      { cwd: root, timeout: 20_000, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });

let receiver: WebhookReceiver;
let server: Server;
let url: string;
const received: ReceivedEvent[] = [];

beforeAll(async () => {
  receiver = createWebhookReceiver({ store: createMemoryEventStore(), secret: SECRET, onEvent: (e) => void received.push(e) });
  server = createServer(receiver.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await receiver.close();
});

const send = (...extra: string[]) => ['webhook', 'send', url, '--event', 'session.resumed', '--insecure-localhost', ...extra];

describe('webhook send --secret', () => {
  it('unsigned: the 401 says the receiver checks signatures and to pass --secret', async () => {
    const run = await cli(send('--session', 'u1'));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/bad_status: 1 .*answered 401: this receiver checks Standard Webhooks signatures; pass --secret whsec_/);
    expect(run.stdout).not.toContain('check the receiver answers 200');
  });

  it('signed with the receiver secret: delivered three times under one webhook-id (1 new, 2 duplicate)', async () => {
    const run = await cli(send('--session', 's1', '--times', '3', '--secret', SECRET));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('sent 3: 3 delivered (1 new, 2 duplicate), 0 failed');
    expect(received.filter((e) => e.session?.id === 's1')).toHaveLength(1);
  });

  it('takes the secret from SESSION_RESUME_WEBHOOK_SECRET', async () => {
    const run = await cli(send('--session', 's2'), { SESSION_RESUME_WEBHOOK_SECRET: SECRET });
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('signed with another secret: the 401 says to check the secret and the clock', async () => {
    const run = await cli(send('--session', 's3', '--secret', OTHER));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/answered 401 to a signed delivery: .*check that --secret is the receiver's signing secret/);
  });

  it('refuses a secret that is not whsec_ + base64 as a usage error (exit 2), before sending', async () => {
    const run = await cli(send('--session', 's4', '--secret', 'not-a-secret'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--secret is refused: The webhook secret must be whsec_');
  });
});

describe('webhook check --secret', () => {
  it('fails the last check without --secret, with the advice; passes with it', async () => {
    const without = await cli(['webhook', 'check', url, '--insecure-localhost']);
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(/FAIL\s+answers 200 in 5 s\s+.*answered 401: this receiver checks Standard Webhooks signatures; pass --secret/);
    const signed = await cli(['webhook', 'check', url, '--insecure-localhost', '--secret', SECRET]);
    expect(signed.code, signed.stdout).toBe(0);
    expect(signed.stdout).toMatch(/ok\s+answers 200 in 5 s\s+200 in \d+ ms \(probe webhook\.probe acknowledged, not processed, signed with --secret\)/);
  });
});
