/**
 * The holes found by probing the reference server with hostile requests, one test each
 * (raw sockets: fetch would fix most of these requests before sending them).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { createApp } from '../../server/app.js';
import { createHttpServer } from '../../server/http/create-http-server.js';
import { createMemorySessionStore } from '../../server/sessions/memory-session-store.js';
import { createSandbox } from '../../server/sandbox/index.js';
import { requestRaw, sendRaw, parseAnswer, type RawAnswer } from '../helpers/raw-http.js';
import { runServerExpectingExit } from '../helpers/server-process.js';

const KEY = 'adversarial-key-1';
const AUTH = `Authorization: Bearer ${KEY}\r\n`;
let server: Server;
let port: number;

beforeAll(async () => {
  const store = createMemorySessionStore();
  await store.seed([
    { id: 'sess_a', status: 'paused' },
    { id: 'sess_b', status: 'paused' },
    { id: 'sess_c', status: 'paused' },
  ]);
  server = createHttpServer(await createApp({ store, apiKeys: [KEY] }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A request line and headers, `Connection: close` added, then the body. */
const request = (head: string, headers = '', body: string | Buffer = '') =>
  Buffer.concat([Buffer.from(`${head} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`, 'latin1'), Buffer.from(body)]);

/** The answer's Error body, checked against the spec's schema. */
function errorOf(answer: RawAnswer): { error: string; message: string } {
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: string; message: string };
  expect(contract.validate('Error', body)).toMatchObject({ ok: true });
  return body;
}

describe('hole 1: authentication before a malformed path, and no path echo', () => {
  it('answers 401 to POST /v1/sessions/%ZZ/resume without a key', async () => {
    const answer = await requestRaw(port, request('POST /v1/sessions/%ZZ/resume', 'Host: x\r\n'));
    expect(answer.status).toBe(401);
    expect(errorOf(answer).error).toBe('unauthorized');
  });

  it('answers 400 with a key, in words that do not repeat the path', async () => {
    const answer = await requestRaw(port, request('POST /v1/sessions/%ZZsecret/resume', `Host: x\r\n${AUTH}`));
    expect(answer.status).toBe(400);
    const body = errorOf(answer);
    expect(body.message).toMatch(/percent-encoding/);
    expect(answer.body).not.toContain('%ZZ');
    expect(answer.body).not.toContain('secret');
  });
});

describe('hole 2: a body that does not decode with its Content-Encoding', () => {
  for (const [encoding, bytes] of [
    ['br', Buffer.from('junk')],
    ['gzip', Buffer.from('junk junk')],
    ['deflate', Buffer.from('junk junk')],
    ['br', brotliCompressSync(Buffer.from('{"a":1}')).subarray(0, 3)],
  ] as const) {
    it(`${encoding} with ${bytes.length} bytes of junk: 400 in the API's words, not zlib's`, async () => {
      const answer = await requestRaw(
        port,
        request(
          'POST /v1/sessions/sess_x/resume',
          `Host: x\r\n${AUTH}Content-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${bytes.length}\r\n`,
          bytes,
        ),
      );
      expect(answer.status).toBe(400);
      const { message } = errorOf(answer);
      expect(message).toMatch(/cannot be decoded with its Content-Encoding/);
      expect(message).not.toMatch(/unexpected end of file|incorrect header check|Decompression failed/);
    });
  }
});

describe('unknown paths answer 404 before the key (x-decisions: unknown-paths)', () => {
  it('/metrics, /v2/… and other paths the spec does not describe: 404 Error JSON without, with a wrong and with a valid key', async () => {
    for (const head of ['GET /metrics', 'POST /v2/sessions/sess_a/resume', 'GET /v1/sessions/sess_a', 'POST /v1/sessions/sess_a/resume/', 'GET /favicon.ico']) {
      for (const auth of ['', 'Authorization: Bearer wrong\r\n', AUTH]) {
        const answer = await requestRaw(port, request(head, `Host: x\r\n${auth}`));
        expect(answer.status, `${head} ${auth}`).toBe(404);
        expect(answer.headers.has('www-authenticate')).toBe(false);
        expect(errorOf(answer)).toMatchObject({ error: 'not_found', message: 'No operation at this path.' });
      }
    }
  });

  it('the resume path still answers 401 first without a key, for a known and an unknown session alike', async () => {
    const known = await requestRaw(port, request('POST /v1/sessions/sess_a/resume', 'Host: x\r\n'));
    const unknown = await requestRaw(port, request('POST /v1/sessions/no_such_session/resume', 'Host: x\r\n'));
    expect([known.status, unknown.status]).toEqual([401, 401]);
    expect(errorOf(known)).toEqual(errorOf(unknown));
  });
});

describe('hole 3: every answer is the Error JSON', () => {
  it('OPTIONS * gets 404 Error JSON, with or without a key (not a path of the spec)', async () => {
    for (const auth of ['', AUTH]) {
      const answer = await requestRaw(port, request('OPTIONS *', `Host: x\r\n${auth}`));
      expect(answer.status).toBe(404);
      expect(errorOf(answer).error).toBe('not_found');
    }
  });

  it('a request without Host gets 400 Error JSON, not an empty 400', async () => {
    const answer = await requestRaw(port, request('POST /v1/sessions/sess_x/resume', AUTH));
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toMatch(/no Host header/);
  });
});

describe('hole 4: two Authorization headers', () => {
  it('are refused with 400 whichever comes first', async () => {
    for (const headers of [`${AUTH}Authorization: Bearer wrong\r\n`, `Authorization: Bearer wrong\r\n${AUTH}`, `${AUTH}${AUTH}`]) {
      const answer = await requestRaw(port, request('POST /v1/sessions/sess_x/resume', `Host: x\r\n${headers}`));
      expect(answer.status).toBe(400);
      expect(errorOf(answer).message).toMatch(/more than one Authorization header/);
    }
  });
});

describe('hole 5: a body must say it is JSON; the path is matched exactly', () => {
  for (const [name, header] of [
    ['no Content-Type', ''],
    ['Content-Type ;;;===', 'Content-Type: ;;;===\r\n'],
    ['Content-Type text/plain', 'Content-Type: text/plain\r\n'],
  ] as const) {
    it(`${name} with a body: 415`, async () => {
      const answer = await requestRaw(port, request('POST /v1/sessions/sess_x/resume', `Host: x\r\n${AUTH}${header}Content-Length: 2\r\n`, '{}'));
      expect(answer.status).toBe(415);
      expect(errorOf(answer).message).toMatch(/^Unsupported media type .*: send application\/json or no body\.$/);
    });
  }

  it('names text/plain in the words of the spec example', async () => {
    const answer = await requestRaw(
      port,
      request('POST /v1/sessions/sess_x/resume', `Host: x\r\n${AUTH}Content-Type: text/plain\r\nContent-Length: 2\r\n`, '{}'),
    );
    expect(errorOf(answer).message).toBe('Unsupported media type text/plain: send application/json or no body.');
  });

  it('a JSON string body is "JSON but not an object", not "not valid JSON"', async () => {
    const answer = await requestRaw(
      port,
      request('POST /v1/sessions/sess_x/resume', `Host: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 3\r\n`, '"x"'),
    );
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toBe('The request body is JSON but not an object: send {} or no body.');
  });

  it('routes case-sensitively and strictly (x-decisions: routing): /V1/... and a trailing slash are 404', async () => {
    for (const path of ['/V1/sessions/sess_a/resume', '/v1/Sessions/sess_a/resume', '/v1/sessions/sess_a/resume/', '/v1/sessions/sess_a/RESUME']) {
      const answer = await requestRaw(port, request(`POST ${path}`, `Host: x\r\n${AUTH}`));
      expect(answer.status, path).toBe(404);
      expect(errorOf(answer).message).toBe('No operation at this path.');
    }
    // ...and nothing was resumed by them.
    expect((await requestRaw(port, request('POST /v1/sessions/sess_a/resume', `Host: x\r\n${AUTH}`))).status).toBe(200);
  });
});

describe('hole 7: Expect: 100-continue', () => {
  const expecting = (headers: string, length: number) =>
    `POST /v1/sessions/sess_b/resume HTTP/1.1\r\nHost: x\r\n${headers}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('without a key: 401 and no 100 Continue, even with a 99 MB Content-Length', async () => {
    const answer = parseAnswer(await sendRaw(port, expecting('', 99_000_000)));
    expect(answer?.status).toBe(401);
    expect(answer?.interim).toEqual([]);
    expect(answer?.headers.get('connection')).toBe('close');
  });

  it('with a key but 99 MB: 413 and no 100 Continue', async () => {
    const answer = parseAnswer(await sendRaw(port, expecting(AUTH, 99_000_000)));
    expect(answer?.status).toBe(413);
    expect(answer?.interim).toEqual([]);
  });

  it('with a key and a small body: 100 Continue, then the answer once the body is sent', async () => {
    const received = await new Promise<Buffer>((resolve) => {
      void import('node:net').then(({ Socket }) => {
        const socket = new Socket();
        const chunks: Buffer[] = [];
        socket.on('data', (d: Buffer) => {
          chunks.push(d);
          // The body goes only after the interim answer, as a client honouring Expect would do.
          if (Buffer.concat(chunks).toString().startsWith('HTTP/1.1 100') && chunks.length === 1) socket.write('{}');
        });
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.connect(port, '127.0.0.1', () => socket.write(expecting(`${AUTH}Connection: close\r\n`, 2)));
      });
    });
    const answer = parseAnswer(received);
    expect(answer?.interim).toEqual([100]);
    expect(answer?.status).toBe(200);
  });
});

describe('hole 8: a blank API_KEYS', () => {
  it('stops the server at start with a message, instead of generating a key', async () => {
    const { code, output } = await runServerExpectingExit({ API_KEYS: ' , ' });
    expect(code).toBe(1);
    expect(output).toContain('API_KEYS is set but holds no key');
    expect(output).not.toContain('Development API key');
    expect(output).not.toMatch(/\n\s+at /);
  });
});

describe('hole 9: no secret, token or caller text in a log line or message', () => {
  it('a REDIS_URL with a password and a query is printed without them at start', async () => {
    const { code, output } = await runServerExpectingExit({ REDIS_URL: 'http://default:hunter2-pass@127.0.0.1:1/0?password=query-secret', API_KEYS: KEY });
    expect(code).toBe(1);
    expect(output).toContain('REDIS_URL=http://127.0.0.1:1/0 must start with redis://');
    expect(output).not.toMatch(/hunter2-pass|query-secret|default:/);
  });

  it('the request log writes the path without its query (?access_token=)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const logged = createHttpServer(await createApp({ store: createMemorySessionStore(), apiKeys: [KEY], logger }));
    await new Promise<void>((resolve) => logged.listen(0, '127.0.0.1', resolve));
    try {
      const at = (logged.address() as AddressInfo).port;
      await requestRaw(at, request('POST /v1/sessions/sess_q/resume?access_token=tok-secret-1', `Host: x\r\n${AUTH}`));
      await requestRaw(at, request('GET /healthz?access_token=tok-secret-2', 'Host: x\r\n'));
    } finally {
      logged.closeAllConnections();
      await new Promise((resolve) => logged.close(resolve));
    }
    const log = lines.join('');
    expect(log).toContain('/v1/sessions/sess_q/resume');
    expect(log).not.toMatch(/tok-secret|access_token/);
  });

  it("the sandbox's 404 does not repeat the method or path asked for", async () => {
    const sandbox = createSandbox({ seeds: [{ id: 'sess_a', status: 'paused' }] });
    const app = await createApp({ store: createMemorySessionStore(), apiKeys: [KEY], sandbox });
    const boxed = createHttpServer(app);
    await new Promise<void>((resolve) => boxed.listen(0, '127.0.0.1', resolve));
    try {
      const at = (boxed.address() as AddressInfo).port;
      const answer = await requestRaw(at, request('GET /_sandbox/%3Cscript%3Esecret-path-99', 'Host: x\r\nAuthorization: Bearer sandbox_holes\r\n'));
      expect(answer.status).toBe(404);
      expect(errorOf(answer).message).not.toMatch(/secret-path|script|%3C/);
    } finally {
      await sandbox.close();
      boxed.closeAllConnections();
      await new Promise((resolve) => boxed.close(resolve));
    }
  });

  it('two Idempotency-Key headers get 400 and resume nothing, instead of one key "a, b"', async () => {
    const answer = await requestRaw(port, request('POST /v1/sessions/sess_c/resume', `Host: x\r\n${AUTH}Idempotency-Key: a\r\nIdempotency-Key: b\r\n`));
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toMatch(/one Idempotency-Key/);
    const resumed = await requestRaw(port, request('POST /v1/sessions/sess_c/resume', `Host: x\r\n${AUTH}Idempotency-Key: a, b\r\n`));
    expect(resumed.status).toBe(200);
  });
});
