/**
 * The CLI against local receivers, as a newcomer tries it: plain http:// on loopback with
 * --insecure-localhost (never otherwise), https:// against a plain-HTTP server, --ca with
 * --insecure-localhost, the probe, and duplicates reported by `webhook send`.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_PROBE_EVENT } from '@session-resume-api/runtime/webhook-probe';
import { makeCertificate, startHttpsReceiver, type HttpsReceiver } from '../helpers/tls.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const cli = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, ['cli/bin/session-resume-api.js', ...args], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });

let plain: Server;
let plainOrigin: string;
const plainBodies: string[] = [];
let dupes: HttpsReceiver;
let probeAware: HttpsReceiver;
let dir: string;

beforeAll(async () => {
  let seen = 0;
  plain = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      plainBodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, duplicate: seen++ > 0 }));
    });
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  dupes = await startHttpsReceiver((_r, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"duplicate":true}'));
  probeAware = await startHttpsReceiver((r, res) => {
    const probe = (JSON.parse(r.body) as { event?: string }).event === WEBHOOK_PROBE_EVENT;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, duplicate: false, ...(probe ? { probe } : {}) }));
  });
  dir = mkdtempSync(join(tmpdir(), 'cli-webhook-local-'));
});
afterAll(async () => {
  plain.closeAllConnections();
  await new Promise((resolve) => plain.close(resolve));
  await Promise.all([dupes.close(), probeAware.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('plain http:// on loopback', () => {
  it('webhook send delivers to http://127.0.0.1 with --insecure-localhost, and reports the duplicates', async () => {
    const run = await cli('webhook', 'send', `${plainOrigin}/hooks/t`, '--event', 'session.resumed', '--session', 's1', '--times', '3', '--insecure-localhost');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('sent 3: 3 delivered (1 new, 2 duplicate), 0 failed');
    expect(plainBodies.length).toBeGreaterThanOrEqual(3);
  });

  it('webhook check passes on http://127.0.0.1 with --insecure-localhost, saying TLS was skipped', async () => {
    const run = await cli('webhook', 'check', `${plainOrigin}/hooks/t`, '--insecure-localhost');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/ok\s+HTTPS\s+http:\/\/ \(allowed for a loopback receiver by --insecure-localhost\)/);
    expect(run.stdout).toMatch(/ok\s+TLS handshake\s+skipped: plain http:\/\//);
  });

  it('refuses http:// without --insecure-localhost, and for a non-loopback host even with it', async () => {
    const without = await cli('webhook', 'send', `${plainOrigin}/h`, '--event', 'e', '--session', 's');
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(/invalid_url: 1 .*must use HTTPS/);
    const check = await cli('webhook', 'check', `${plainOrigin}/h`);
    expect(check.stdout).toMatch(/FAIL\s+HTTPS\s+.*http:\/\/ with --insecure-localhost/);
    const publicHost = await cli('webhook', 'send', 'http://93.184.216.34/h', '--event', 'e', '--session', 's', '--insecure-localhost', '--timeout-ms', '2000');
    expect(publicHost.code).toBe(1);
    expect(publicHost.stdout).toMatch(/invalid_url: 1 .*only for a loopback receiver/);
  });
});

describe('https:// against a plain-HTTP server', () => {
  it('says the server did not answer TLS, without OpenSSL text or certificate advice', async () => {
    const url = plainOrigin.replace('http:', 'https:');
    const run = await cli('webhook', 'check', `${url}/h`, '--insecure-localhost');
    expect(run.code).toBe(1);
    const last = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^FAIL\s+TLS handshake\s+.*did not answer TLS: is it plain HTTP\?/);
    expect(run.stdout).not.toMatch(/wrong version number|ssl3_get_record|certificate is valid/i);
  });
});

describe('--ca with --insecure-localhost', () => {
  it('verifies the loopback receiver against the given CA: its own CA passes, another fails', async () => {
    const own = join(dir, 'own.pem');
    writeFileSync(own, probeAware.certificate.cert);
    const good = await cli('webhook', 'check', `${probeAware.origin}/h`, '--insecure-localhost', '--ca', own);
    expect(good.code, good.stdout).toBe(0);
    expect(good.stdout).toMatch(/ok\s+TLS handshake\s+CN=localhost/);
    expect(good.stdout).not.toContain('not verified');

    const other = join(dir, 'other.pem');
    writeFileSync(other, makeCertificate('other').cert);
    expect(readFileSync(other, 'utf8')).toContain('BEGIN CERTIFICATE');
    const bad = await cli('webhook', 'check', `${probeAware.origin}/h`, '--insecure-localhost', '--ca', other);
    expect(bad.code).toBe(1);
    expect(bad.stdout.trim().split('\n').at(-1)).toMatch(/^FAIL\s+TLS handshake/);
  });
});

describe('the probe', () => {
  it('webhook check sends the probe event, and says when the receiver acknowledged it as a probe', async () => {
    const run = await cli('webhook', 'check', `${probeAware.origin}/h`, '--insecure-localhost');
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.parse(probeAware.requests.at(-1)?.body ?? '{}')).toMatchObject({ event: WEBHOOK_PROBE_EVENT });
    expect(run.stdout).toMatch(/probe webhook\.probe acknowledged, not processed/);
    const unaware = await cli('webhook', 'check', `${dupes.origin}/h`, '--insecure-localhost');
    expect(unaware.stdout).toMatch(/does not recognise it/);
  });
});
