/**
 * 5,000 generated hostile requests against the reference server (fast-check, raw sockets on
 * loopback: fetch and node:http would normalise most of them). Every answer must be: no 5xx,
 * a status and body the spec declares for the resume operation (the conformance response
 * check, the same Ajv validators), the Error body for every error, no echo of the session
 * id, and, for a request without exactly one valid key, 404 on a path the spec does not describe
 * and 401 before anything else on the resume path.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import { createResponseCheck } from '../../cli/conformance/response-check.js';
import { createApp } from '../../server/app.js';
import { createHttpServer } from '../../server/http/create-http-server.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { parseAnswer, sendRaw, type RawAnswer } from '../helpers/raw-http.js';

const RUNS = 5000;
const KEY = 'fuzz-key-Zk3';
/** Every generated id carries this marker; no answer may contain it. */
const MARK = 'zQ9x';
const PAUSED = Array.from({ length: 300 }, (_, i) => `sess_p_${i}`);
const checkResume = createResponseCheck(contract, RESUME_PATH, 'post');
/** The resume path's shape as sent: one non-empty segment for the id, exact case, no trailing slash, any query. */
const RESUME_PATH_SHAPE = /^\/v1\/sessions\/[^/?]+\/resume(\?.*)?$/;
/** The spec's path template with a generated segment in place of `{session_id}`. */
const pathOf = (segment: string, template: string = RESUME_PATH) => template.replace('{session_id}', segment);

let server: Server;
let port: number;
beforeAll(async () => {
  const store = createMemorySessionStore();
  await store.seed([...PAUSED.map((id) => ({ id, status: 'paused' })), { id: 'sess_running', status: 'running' }]);
  server = createHttpServer(await createApp({ store, apiKeys: [KEY] }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The path segment of the id, as sent (raw bytes, maybe malformed), with the marker in it unless it is a fixed short form. */
const segmentArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PAUSED.slice(0, 50), 'sess_running'),
  fc.constantFrom('', '.', '..', '%2F', '%2e%2e', '%00', '%', '%Z', '%ZZ', '%E9', '%C3%28', '%%', '%2', `${MARK}%`, `${MARK}%G1`),
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(MARK + s)),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => encodeURIComponent(`${MARK}é${s}`)),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(`${MARK}${s}`).replace(/%2F/g, '/')),
  fc.constantFrom(`${MARK}${'a'.repeat(10_240)}`, `${MARK}%2F..%2F`, `${MARK}/../x`, `${MARK}%00x`, `${MARK}\u0000x`, `${MARK} x`, `${MARK}%u00e9`),
);

const pathArb = fc.oneof(
  { weight: 8, arbitrary: segmentArb.map((s) => pathOf(s)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        segmentArb,
        fc.constantFrom(
          '/V1/sessions/%s/resume',
          '/v1/sessions/%s/resume/',
          '/v1/sessions/%s',
          '/v1/sessions/%s/resume?x=1',
          '/v1/sessions/%s/resume?%ZZ',
          '//v1/sessions/%s/resume',
          '/v1/sessions/%s/resume/x',
          '*',
          '/',
          `/${MARK}`,
        ),
      )
      .map(([s, t]) => t.replace('%s', s)),
  },
);

type AuthKind = 'valid' | 'valid-lower' | 'missing' | 'wrong' | 'basic' | 'empty-bearer' | 'random' | 'two-valid' | 'valid-and-wrong';
const authArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<AuthKind>('valid') },
  { weight: 4, arbitrary: fc.constantFrom<AuthKind>('valid-lower', 'missing', 'wrong', 'basic', 'empty-bearer', 'random', 'two-valid', 'valid-and-wrong') },
);
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });
const tokenName = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)
  .filter((n) => !/^(host|authorization|content-length|transfer-encoding|expect|connection|content-encoding)$/i.test(n));

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('{}', '[]', '"x"', '1', 'null', '{', '{"a":', '{"__proto__":{"x":1}}', ' ', '\u0000', 'x'.repeat(150_000)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 200 }),
);
const contentTypeArb = fc.option(
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'APPLICATION/JSON; charset=utf-8',
      'application/json; charset=latin1',
      'text/plain',
      ';;;===',
      'application/json;;',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '',
    ),
    headerValue,
  ),
  { nil: undefined },
);
const encodingArb = fc.constantFrom(undefined, undefined, undefined, 'gzip', 'gzip-junk', 'br', 'deflate', 'identity', 'compress', 'x-junk');

const requestArb = fc.record({
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constant('POST') },
    { weight: 4, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'post', 'FOO', 'M-SEARCH', 'PURGE') },
  ),
  path: pathArb,
  host: fc.oneof({ weight: 9, arbitrary: fc.constant<string | undefined>('127.0.0.1') }, { weight: 1, arbitrary: fc.constant(undefined) }),
  auth: authArb,
  authRandom: headerValue,
  extra: fc.array(fc.tuple(tokenName, headerValue), { maxLength: 4 }),
  duplicate: fc.option(fc.constantFrom('Content-Type: text/plain', 'Content-Type: application/json', 'Accept: x', 'Cookie: a=b'), { nil: undefined }),
  body: bodyArb,
  contentType: contentTypeArb,
  encoding: encodingArb,
  chunked: fc.boolean(),
  expectContinue: fc.boolean(),
});
type Generated = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function authorizationLines(r: Generated): string[] {
  switch (r.auth) {
    case 'valid':
      return [`Bearer ${KEY}`];
    case 'valid-lower':
      return [`bearer ${KEY}`];
    case 'missing':
      return [];
    case 'wrong':
      return ['Bearer not-the-key'];
    case 'basic':
      return [`Basic ${Buffer.from(`u:${KEY}`).toString('base64')}`];
    case 'empty-bearer':
      return ['Bearer '];
    case 'random':
      return [r.authRandom];
    case 'two-valid':
      return [`Bearer ${KEY}`, `Bearer ${KEY}`];
    case 'valid-and-wrong':
      return [`Bearer ${KEY}`, 'Bearer wrong'];
  }
}

/** The bytes of the request. */
function serialise(r: Generated): Buffer {
  const lines = [`${r.method} ${r.path} HTTP/1.1`];
  if (r.host !== undefined) lines.push(`Host: ${r.host}`);
  for (const value of authorizationLines(r)) lines.push(`Authorization: ${value}`);
  for (const [name, value] of r.extra) lines.push(`${name}: ${value}`);
  if (r.duplicate) lines.push(r.duplicate, r.duplicate);
  let payload = r.body === undefined ? undefined : Buffer.from(r.body);
  if (payload !== undefined) {
    if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
    if (r.encoding === 'gzip') payload = gzipSync(payload);
    if (r.encoding !== undefined) lines.push(`Content-Encoding: ${r.encoding === 'gzip-junk' ? 'gzip' : r.encoding}`);
    if (r.expectContinue) lines.push('Expect: 100-continue');
    if (r.chunked) {
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
    } else {
      lines.push(`Content-Length: ${payload.length}`);
    }
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload ?? Buffer.alloc(0)]);
}

/** What the answer breaks; empty when it keeps every rule. */
function problems(r: Generated, answer: RawAnswer | undefined): string[] {
  if (!answer) return ['no complete answer'];
  // GET / (HEAD too) is the key-free index pointing to /docs and /openapi.yaml, outside the operation.
  if (r.path === '/' && ['GET', 'HEAD'].includes(r.method) && answer.status === 200) return [];
  const found: string[] = [];
  if (answer.status >= 500) found.push(`5xx: ${answer.status}`);
  if (answer.body.includes(MARK) || answer.headerLines.some(([, v]) => v.includes(MARK))) found.push('echoes the session id');
  const head = r.method === 'HEAD';
  if (!head) {
    found.push(...checkResume({ status: answer.status, headers: answer.headers, text: answer.body }));
    if (answer.status >= 300) {
      try {
        if (!contract.validate('Error', JSON.parse(answer.body)).ok) found.push('error answer without the Error body');
      } catch {
        found.push('error answer is not JSON');
      }
    }
  }
  // Answers with X-Request-Id come from the app; those without, from Node's HTTP parser (unparsable requests).
  const fromApp = answer.headers.has('x-request-id');
  const authLines = authorizationLines(r);
  const validKey = authLines.length === 1 && /^bearer +fuzz-key-Zk3 *$/i.test(authLines[0]!.trim());
  if (fromApp && !validKey) {
    const framing = r.host === undefined || authLines.length > 1;
    // Only the spec's path needs a key; any other path is 404 by its shape (x-decisions: unknown-paths).
    const first = RESUME_PATH_SHAPE.test(r.path) ? 401 : 404;
    const allowed = framing ? [400, first] : [first];
    if (!allowed.includes(answer.status)) found.push(`no valid key but ${answer.status}, not ${first}`);
  }
  if (validKey && answer.status === 401) found.push('a valid key got 401');
  return found;
}

describe('5,000 hostile requests against the reference server', () => {
  it('never get a 5xx, always get a declared status and body, never echo the id, and 404 or 401 first without a key', async () => {
    const counts = { tried: 0, fiveXx: 0, brokeSpec: 0, byStatus: {} as Record<number, number>, noAnswer: 0, httpLayer: 0 };
    const examples: string[] = [];
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        counts.tried++;
        const answer = parseAnswer(await sendRaw(port, serialise(r), 5000));
        if (answer) counts.byStatus[answer.status] = (counts.byStatus[answer.status] ?? 0) + 1;
        else counts.noAnswer++;
        if (answer && !answer.headers.has('x-request-id')) counts.httpLayer++;
        const found = problems(r, answer);
        if (answer && answer.status >= 500) counts.fiveXx++;
        if (found.length) {
          counts.brokeSpec++;
          if (examples.length < 5) examples.push(`${found.join('; ')} <- ${serialise(r).toString('latin1').slice(0, 300)}`);
        }
        return found.length === 0;
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `adversarial server: ${counts.tried} requests tried, ${counts.fiveXx} 5xx, ${counts.brokeSpec} answers broke the spec, ` +
        `${counts.noAnswer} without an answer, ${counts.httpLayer} refused by the HTTP parser; statuses ${JSON.stringify(counts.byStatus)}`,
    );
    expect(examples).toEqual([]);
    expect(counts.tried).toBe(RUNS);
    expect(counts.noAnswer).toBe(0);
    expect(counts.fiveXx).toBe(0);
  }, 240_000);
});
