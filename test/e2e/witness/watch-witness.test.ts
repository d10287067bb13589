/**
 * The witness suite of `watch`: traffic produced by other clients (curl, Python requests with
 * urllib3's Retry) through `watch` in front of a service written here that drifts two ways (a
 * resume answered `200 {"success":false}` without the not_paused marker, and Idempotency-Key
 * ignored). The grade of every rule was written down first, from what each client is documented
 * to send (cited where the traffic is made) and what the service answers.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { WATCH_RULES, type WatchRuleId } from '../../../cli/watch/watch-rules.js';
import { listen } from '../../helpers/listen.js';
import { startWatch } from '../../helpers/watch-process.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const API_KEY = 'witness-api-key-0123';
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

type Grade = 'pass' | 'drift' | 'n/o';

/**
 * Expected, with the traffic below: curl's POST without a key gets 401 and one to a running
 * session gets the marker-less 200 {success:false} (outcome); urllib3 retries the 503 twice,
 * each with Retry-After (retry-after, error-shape); the repeated key gets a fresh answer
 * without Idempotent-Replayed (idempotent-replay). No delivery, no rate-limit field, no marker.
 */
const EXPECTED: Record<WatchRuleId, Grade> = {
  'request-shape': 'pass',
  'response-shape': 'pass',
  outcome: 'drift',
  'error-shape': 'pass',
  'not-paused': 'n/o',
  'idempotent-replay': 'drift',
  'retry-after': 'pass',
  'rate-limit-headers': 'n/o',
  'webhook-shape': 'n/o',
  'webhook-signature': 'n/o',
  'webhook-id-stable': 'n/o',
  'attempt-spacing': 'n/o',
  'webhook-timestamp': 'n/o',
};

const json = { 'content-type': 'application/json' };
const error = (code: string) => JSON.stringify({ success: false, error: code, message: code });

it('curl and Python requests through watch: every rule graded as expected', { timeout: 90_000 }, async () => {
  const service = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${API_KEY}`)
        return void res.writeHead(401, { ...json, 'www-authenticate': 'Bearer realm="session-resume"' }).end(error('unauthorized'));
      if (req.url?.includes('sess_busy')) return void res.writeHead(503, { ...json, 'retry-after': '1' }).end(error('service_unavailable'));
      if (req.url?.includes('sess_running')) return void res.writeHead(200, json).end(JSON.stringify({ success: false, message: 'Session is not paused' }));
      res.writeHead(200, json).end(JSON.stringify({ success: true, message: 'Session resumed.' }));
    });
  });
  closers.push(() => service.close());
  const watch = await startWatch(['--target', service.url, '--port', '0']);
  const api = watch.apiUrl as string;
  // curl -X POST with no body: https://curl.se/docs/manpage.html#-X; -w prints the status.
  const curl = (args: string[]) => run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', ...args]);
  expect((await curl([`${api}/v1/sessions/sess_running_1/resume`])).stdout).toBe('401');
  expect((await curl(['-H', `Authorization: Bearer ${API_KEY}`, `${api}/v1/sessions/sess_running_1/resume`])).stdout).toBe('200');
  const python = await run('python3', [`${here}/watch-python-requests.py`, api, API_KEY]);
  expect(python.stdout).toBe('busy 503\nkeyed 200\nkeyed 200\n');
  const result = await watch.stop();
  const graded = Object.fromEntries(result.entries.map((e) => [e.rule, e.grade]));
  expect(graded, JSON.stringify(result.entries, null, 1)).toEqual(EXPECTED);
  expect(Object.keys(EXPECTED)).toEqual(WATCH_RULES.map((r) => r.id));
  // Three 503s from urllib3's Retry: the first request and its two retries.
  expect(result.entries.find((e) => e.rule === 'retry-after')?.evidence).toBe('3 checked, none drifted');
  expect(result.code).toBe(1);
});
