/**
 * `webhook grade` against the kit's example receiver (two instances on one Redis: every rule
 * passes) and against receivers written here that each break one rule: each fails exactly that
 * rule, shown by the exit code and the rule's JSON entry. Short deadlines and delays keep it quick.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignatureVerifier } from '../../client/webhooks/verify-signature.js';
import { generateWebhookSecret } from '../../cli/listen/run-listen.js';
import { DELIVERY_RULES } from '@session-resume-api/runtime/delivery/delivery-rules';
import { runWebhookGrade } from '../../cli/webhook-grade/run-grade.js';
import { getFreePort } from '../helpers/free-port.js';
import { listen, type Listening } from '../helpers/listen.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'grade-token-0123456789abcdefghijkl';
const SECRET = generateWebhookSecret();
/** Short waits: the rules and the 5 s deadline are the same, the run takes seconds. */
const QUICK = ['--insecure-localhost', '--json', '--delay-ms', '100', '--burst', '20', '--settle-ms', '1500'];

interface Entry {
  rule: string;
  title: string;
  grade: 'pass' | 'fail' | 'n/o';
  evidence: string;
  next?: string;
}
interface Run {
  code: number;
  entries: Entry[];
  stdout: string;
  stderr: string;
}

const grade = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, ['cli/bin/session-resume-api.js', 'webhook', 'grade', ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      const entries = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Entry);
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, entries, stdout, stderr });
    });
  });

const failing = (run: Run) => run.entries.filter((e) => e.grade === 'fail').map((e) => e.rule);
const entry = (run: Run, rule: string) => run.entries.find((e) => e.rule === rule) as Entry;

/** Reads the whole body, then answers with `answer(body, req)`'s status and JSON. */
function receiver(answer: (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse, raw: string) => unknown): Promise<Listening> {
  return listen((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      void Promise.resolve(answer(JSON.parse(text || '{}') as Record<string, unknown>, req, res, text)).then((body) => {
        if (body !== undefined && !res.headersSent) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
  });
}

/** The dedupe identity, and the --observe key (docs/cli.md): event, session id, timestamp. */
const keyOf = (e: Record<string, unknown>) =>
  [e.event ?? e.status, (e.session as { id?: string } | undefined)?.id ?? e.session_id, e.timestamp].map(String).join(' ');

/** A receiver with its own memory of processed events; `dedupe: false` processes every copy. */
function memoryReceiver(options: { dedupe: boolean; seen?: Map<string, number> }) {
  const processed = options.seen ?? new Map<string, number>();
  return receiver((event) => {
    const key = keyOf(event);
    const duplicate = options.dedupe && processed.has(key);
    if (!duplicate) processed.set(key, (processed.get(key) ?? 0) + 1);
    return options.dedupe ? { received: true, duplicate } : { received: true };
  }).then((server) => ({ server, processed }));
}

let redis: RedisServer;
const examples: { child: ChildProcess; url: string }[] = [];
const servers: Listening[] = [];

async function startExample(): Promise<string> {
  const port = await getFreePort();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'examples/webhook-receiver/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), REDIS_URL: redis.url, WEBHOOK_URL_TOKEN: TOKEN, WEBHOOK_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}/webhooks/session-events/${TOKEN}`;
  examples.push({ child, url });
  await waitFor(() => out.includes('"listening"'), { timeoutMs: 30_000, what: 'example receiver' });
  return url;
}

beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);

afterAll(async () => {
  for (const { child } of examples) child.kill('SIGTERM');
  await Promise.all(servers.map((s) => s.close()));
  await redis?.stop();
});

describe('webhook grade', () => {
  it('the rules are the documented list, in order, each graded once', { timeout: 60_000 }, async () => {
    const { server } = await memoryReceiver({ dedupe: true });
    servers.push(server);
    const run = await grade(server.url, ...QUICK);
    expect(run.entries.map((e) => e.rule)).toEqual(DELIVERY_RULES.map((r) => r.id));
    expect(run.code, run.stderr).toBe(0);
  });

  it('the example receiver (two instances on one Redis, with its secret) passes every rule', { timeout: 120_000 }, async () => {
    const urls = [await startExample(), await startExample()];
    const run = await grade(...urls, '--secret', SECRET, ...QUICK);
    expect(
      run.entries.filter((e) => e.grade !== 'pass'),
      JSON.stringify(run.entries, null, 1),
    ).toEqual([]);
    expect(run.entries).toHaveLength(DELIVERY_RULES.length);
    expect(run.code).toBe(0);
    // No output repeats the secret or the URL token.
    expect(JSON.stringify(run.entries)).not.toContain(TOKEN);
    expect(JSON.stringify(run.entries)).not.toContain(SECRET);
  });

  it('no dedupe (seen through --observe): fails exactly dedupe', { timeout: 60_000 }, async () => {
    const { server, processed } = await memoryReceiver({ dedupe: false });
    const observe = await listen(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(processed))),
    );
    servers.push(server, observe);
    const run = await grade(server.url, '--observe', observe.url, ...QUICK);
    expect(failing(run)).toEqual(['dedupe']);
    expect(entry(run, 'dedupe').evidence).toMatch(/processed [2-9] time\(s\).*by --observe.*dedupe by event, session id and timestamp/);
    expect(run.code).toBe(1);
  });

  it('no dedupe and no way to see it: dedupe is not observable, with a hint', { timeout: 60_000 }, async () => {
    const { server } = await memoryReceiver({ dedupe: false });
    servers.push(server);
    const run = await grade(server.url, '--only', 'duplicate-again,dedupe', ...QUICK);
    expect(entry(run, 'dedupe')).toMatchObject({ grade: 'n/o', evidence: expect.stringContaining('--observe') });
    expect(run.code).toBe(0);
  });

  it('slow under a burst (does its work before answering, one request at a time): fails exactly ack-burst', { timeout: 60_000 }, async () => {
    let queue = Promise.resolve();
    const seen = new Set<string>();
    const server = await receiver((event, _req, res) => {
      const turn = queue.then(async () => {
        // A request the grader gave up on is skipped, so the backlog does not spill into the next rule.
        if (!res.destroyed) await new Promise((r) => setTimeout(r, 150));
      });
      queue = turn;
      return turn.then(() => {
        const duplicate = seen.has(keyOf(event));
        seen.add(keyOf(event));
        return { received: true, duplicate };
      });
    });
    servers.push(server);
    // A 2 s deadline: 20 requests of 150 ms one at a time take 3 s.
    const run = await grade(server.url, ...QUICK, '--timeout-ms', '2000');
    // No headroom either: some deliveries timed out.
    expect(failing(run)).toEqual(['ack-burst', 'ack-headroom']);
    expect(entry(run, 'ack-burst').evidence).toMatch(
      /20 concurrent distinct deliveries, p50 \d+ ms, p99 \d+ ms \(deadline 2000 ms\) \(\d+ of 20 failed\): .*gave no 200 within 2000 ms/,
    );
    expect(entry(run, 'ack-burst').next).toMatch(/sends the event again in 5s/);
    expect(run.code).toBe(1);
  });

  it('accepts bad signatures: fails exactly signature-invalid', { timeout: 60_000 }, async () => {
    const { server } = await memoryReceiver({ dedupe: true });
    servers.push(server);
    const run = await grade(server.url, '--secret', SECRET, ...QUICK);
    expect(failing(run)).toEqual(['signature-invalid']);
    expect(entry(run, 'signature-invalid').evidence).toMatch(/^a tampered body 200, another secret 200, a timestamp 10 min old 200: .*forged/);
    expect(entry(run, 'signature-valid').grade).toBe('pass');
    expect(run.code).toBe(1);
  });

  it('a receiver that checks signatures passes both signature rules', { timeout: 60_000 }, async () => {
    const seen = new Set<string>();
    const verify = createSignatureVerifier(SECRET);
    const server = await receiver((event, req, res, raw) => {
      const check = verify(raw, req.headers);
      if (!check.ok) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"success":false}');
      const duplicate = seen.has(keyOf(event));
      seen.add(keyOf(event));
      return { received: true, duplicate };
    });
    servers.push(server);
    const run = await grade(server.url, '--secret', SECRET, '--only', 'signature-valid,signature-invalid', ...QUICK);
    expect(run.entries.map((e) => [e.rule, e.grade])).toEqual([
      ['https', 'pass'],
      ['signature-valid', 'pass'],
      ['signature-invalid', 'pass'],
    ]);
    expect(entry(run, 'signature-invalid').evidence).toBe('a tampered body 401, another secret 401, a timestamp 10 min old 401');
  });

  it('dedupes only per instance: fails exactly dedupe-shared', { timeout: 60_000 }, async () => {
    const a = await memoryReceiver({ dedupe: true });
    const b = await memoryReceiver({ dedupe: true });
    servers.push(a.server, b.server);
    const run = await grade(a.server.url, b.server.url, ...QUICK);
    expect(failing(run)).toEqual(['dedupe-shared']);
    expect(entry(run, 'dedupe-shared').evidence).toMatch(/processed 2 time\(s\).*storage every instance shares/);
    expect(entry(run, 'duplicate-other-instance').grade).toBe('pass');
    expect(run.code).toBe(1);
  });

  it.each([
    ['slower than the deadline', 'gave no 200 within 300 ms', (res: ServerResponse) => void setTimeout(() => res.writeHead(200).end(), 600)],
    [
      'a redirect',
      'answered 308 (redirect to https://elsewhere.example/hook); redirects are not followed',
      (res: ServerResponse) => void res.writeHead(308, { location: 'https://elsewhere.example/hook' }).end(),
    ],
    ['202 Accepted', 'answered 202; only 200 counts as delivered', (res: ServerResponse) => void res.writeHead(202).end()],
  ])('%s: ack fails, saying what the service will do', { timeout: 60_000 }, async (_name, answered, answer) => {
    const server = await receiver((_event, _req, res) => answer(res));
    servers.push(server);
    const run = await grade(server.url, '--only', 'ack', ...QUICK, '--timeout-ms', '300');
    expect(failing(run)).toEqual(['ack']);
    expect(entry(run, 'ack').evidence).toContain(answered);
    expect(entry(run, 'ack').next).toMatch(
      /The service counts this as a failed delivery.*sends the event again in 5s, then after 5m, 30m, .*24h \(10 attempts in all\), then lists it as a dead letter\./,
    );
    expect(run.code).toBe(1);
  });

  it('plain http:// without --insecure-localhost fails https and runs nothing else; usage errors exit 2', { timeout: 60_000 }, async () => {
    const run = await grade('http://127.0.0.1:9/hook', '--json');
    expect(failing(run)).toEqual(['https']);
    expect(entry(run, 'https').evidence).toContain('--insecure-localhost');
    expect(run.entries.slice(1).every((e) => e.grade === 'n/o')).toBe(true);
    expect(run.code).toBe(1);
    expect((await grade()).code).toBe(2);
    expect((await grade('https://example.com/hook', '--only', 'no-such-rule')).code).toBe(2);
  });
});

/** A receiver that takes every request and never answers; counts what it was sent. */
async function silentReceiver(): Promise<{ server: Listening; requests: () => number }> {
  let count = 0;
  const server = await listen((req) => {
    count += 1;
    req.resume();
  });
  servers.push(server);
  return { server, requests: () => count };
}

describe('webhook grade passes nothing it did not observe', () => {
  // Graded in-process, each rule alone: a deadline of 300 ms, the rule's own sends only.
  const quick = { insecureLocalhost: true, secret: SECRET, timeoutMs: 300, delayMs: 0, settleMs: 0, burst: 5, copies: 2 };

  it.each(DELIVERY_RULES.map((r) => r.id).filter((id) => id !== 'https'))(
    'a receiver that never answers: %s alone is not pass, and says what was not observed',
    { timeout: 30_000 },
    async (id) => {
      const { server } = await silentReceiver();
      const entries = await runWebhookGrade([server.url], { ...quick, only: [id] });
      const graded = entries.find((e) => e.rule === id) as Entry;
      expect(graded.grade, JSON.stringify(graded)).not.toBe('pass');
      // The reason: no answer within the deadline, or the earlier rule this one depends on.
      expect(graded.evidence, JSON.stringify(graded)).toMatch(/no answer|no 200 within 300 ms|no duplicate|not delivered twice|one URL given|not run/);
    },
  );

  it('a whole run: ack fails, nothing more is sent, and each rule that sends something is not pass', { timeout: 60_000 }, async () => {
    const a = await silentReceiver();
    const b = await silentReceiver();
    // The execFile deadline of grade() (60 s) bounds the run; the requests show nothing was sent after ack.
    const run = await grade(a.server.url, b.server.url, '--secret', SECRET, ...QUICK, '--timeout-ms', '1000');
    expect(failing(run)).toEqual(['ack', 'ack-headroom']);
    expect(entry(run, 'ack').evidence).toMatch(/gave no 200 within 1000 ms/);
    expect(entry(run, 'ack-headroom').evidence).toBe('2 of 2 deliveries got no answer within 1000 ms (no headroom)');
    expect(entry(run, 'https').grade).toBe('pass');
    // dedupe and dedupe-shared send nothing of their own: not observable, as no duplicate was answered.
    for (const e of run.entries.filter((e) => e.rule.startsWith('dedupe'))) expect(e.grade).toBe('n/o');
    for (const e of run.entries.filter((e) => !['https', 'ack', 'dedupe', 'dedupe-shared', 'ack-headroom'].includes(e.rule))) {
      expect(e, JSON.stringify(e)).toMatchObject({ grade: 'n/o', evidence: 'not run: the receiver answered no delivery so far (see ack).' });
    }
    expect(a.requests() + b.requests()).toBe(2);
    expect(run.code).toBe(1);
  });

  it('the text report says once what the service does about a failure', { timeout: 60_000 }, async () => {
    const server = await receiver((_event, _req, res) => void res.writeHead(500).end());
    servers.push(server);
    const run = await grade(server.url, '--insecure-localhost', '--delay-ms', '100', '--burst', '5');
    const sentence = /The service counts this as a failed delivery/g;
    expect(run.stdout.match(sentence), run.stdout).toHaveLength(1);
    expect(run.stdout).toMatch(/^FAIL {2}ack-burst .*answered 500.* The service retries it as said under ack\.$/m);
    expect(run.code).toBe(1);
  });
});
