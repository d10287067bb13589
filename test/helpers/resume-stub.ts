/**
 * A tiny node:http stand-in for the Session Resume service whose answer is chosen by the
 * session id, for the client and CLI tests: not_paused in odd shapes, retries, resets, hangs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stub saw of one request. */
export interface SeenRequest {
  method: string;
  /** The raw request target, as sent (still percent-encoded). */
  rawUrl: string;
  /** The session id decoded from the one path segment, or undefined when the path does not match. */
  sessionId: string | undefined;
  headers: IncomingMessage['headers'];
}

/** A running stub: its base URL, what it saw, and stop(). */
export interface ResumeStub {
  url: string;
  requests: SeenRequest[];
  /** How many requests reached the stub for one session id. */
  hits(sessionId: string): number;
  stop(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const resumed = (res: ServerResponse, id: string) => json(res, 200, { success: true, message: `Session ${id} resumed.` });

/**
 * Answers by session id. `np-200`, `np-400`, `np-text`: not_paused as 200 success:false, as
 * 400, as text/plain. `rl-seconds`/`rl-date`: 429 with Retry-After 120 s / an HTTP date an
 * hour ahead. `rl-then-ok`, `503-then-ok`, `reset-then-ok`: one failure, then 200. `reset-after-resume`: a reset,
 * then 409 not_paused. `always-503`,
 * `bad-request`, `html-500`, `forbidden`, `unknown-*` (404 echoing the id), `hang` (never
 * answers), `hang-body` (headers, then a body that never ends), `garbage-200` (200 text). Anything else: 200 resumed, echoing what it saw.
 */
export async function startResumeStub(): Promise<ResumeStub> {
  const requests: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const rawUrl = req.url ?? '';
    const match = /^\/v1\/sessions\/([^/?#]+)\/resume$/.exec(rawUrl);
    const sessionId = match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
    requests.push({ method: req.method ?? '', rawUrl, sessionId, headers: req.headers });
    req.resume();
    if (sessionId === undefined || req.method !== 'POST') return json(res, 404, { success: false, error: 'not_found', message: 'No such route.' });
    const n = (counts.get(sessionId) ?? 0) + 1;
    counts.set(sessionId, n);
    switch (sessionId) {
      case 'np-200':
        return json(res, 200, { success: false, message: 'Session np-200 is not paused (not_paused).' });
      case 'np-400':
        return json(res, 400, { success: false, error: 'not_paused', message: 'Session is not paused.' });
      case 'np-text':
        res.writeHead(409, { 'content-type': 'text/plain' });
        return res.end('error: not_paused');
      case 'rl-seconds':
        return json(res, 429, { success: false, error: 'rate_limited', message: 'Slow down.' }, { 'retry-after': '120' });
      case 'rl-date':
        return json(
          res,
          429,
          { success: false, error: 'rate_limited', message: 'Slow down.' },
          {
            'retry-after': new Date(Date.now() + 3_600_000).toUTCString(),
          },
        );
      case 'rl-then-ok':
        return n === 1 ? json(res, 429, { success: false, error: 'rate_limited', message: 'Wait.' }, { 'retry-after': '0' }) : resumed(res, sessionId);
      case '503-then-ok':
        return n === 1 ? json(res, 503, { success: false, error: 'service_unavailable', message: 'Store down.' }) : resumed(res, sessionId);
      case 'reset-then-ok':
        if (n === 1) return req.socket.destroy();
        return resumed(res, sessionId);
      case 'reset-after-resume':
        // The first attempt resumes the session but its answer is lost; the retry finds it running.
        if (n === 1) return req.socket.destroy();
        return json(res, 409, { success: false, error: 'not_paused', message: `Session ${sessionId} is not paused.` });
      case 'always-503':
        return json(res, 503, { success: false, error: 'service_unavailable', message: 'Store down.' });
      case 'bad-request':
        return json(res, 400, { success: false, error: 'bad_request', message: 'Bad body.' });
      case 'html-500':
        res.writeHead(500, { 'content-type': 'text/html' });
        return res.end('<html><body>Internal Server Error</body></html>');
      case 'forbidden':
        return json(res, 403, { success: false, error: 'forbidden', message: 'Key lacks the scope.' });
      case 'garbage-200':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('OK');
      case 'hang':
        return; // never answers
      case 'hang-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.write('{"success":'); // headers, then a body that never ends
      default:
        if (sessionId.startsWith('unknown')) {
          return json(res, 404, { success: false, error: 'not_found', message: `Session ${sessionId} was not found.` });
        }
        return json(res, 200, { success: true, message: `Session ${sessionId} resumed.`, seen: { rawUrl, sessionId } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (id) => counts.get(id) ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
