/**
 * The server of `client grade`: the resume operation on a loopback port, where each scenario's
 * session id meets its scripted faults (answers of the contract, resets, a hang), and every
 * request is recorded with what was done to it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import { resumeUrl } from '@session-resume-api/runtime/resume-path';
import { contractAnswer, type ContractAnswer } from './contract-answers.js';
import type { Attempt } from './observations.js';
import type { Fault, Scenario } from './scenarios.js';
import { createSessionState, type SessionState } from './session-state.js';

/** Options of `startFaultServer`. */
export interface FaultServerOptions {
  scenarios: readonly Scenario[];
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** How long a hung attempt is held before the grader resets it, in ms. */
  hangLimitMs: number;
}

/** A started server. */
export interface FaultServer {
  /** Base URL, without /v1. */
  baseUrl: string;
  /** Every request so far, in order of arrival, up to {@link MAX_RECORDED_ATTEMPTS}. */
  attempts: readonly Attempt[];
  /** Requests refused (connection reset, not recorded) once the record was full. */
  refused(): number;
  /** Ms since the server started. */
  now(): number;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** The request header of the Idempotency-Key, as node:http names it. */
const KEY_HEADER = RESUME_RETRY_POLICY.idempotencyKey.header.toLowerCase();

/** Most requests one run records (each: its headers and at most 1 kB of body); a client keeping the policy sends under 100. */
export const MAX_RECORDED_ATTEMPTS = 10_000;

/** Bytes of a request body kept for the evidence. */
const BODY_KEPT = 1024;

/** What the handlers of one server share. */
interface Run {
  now: () => number;
  attempts: Attempt[];
  /** Set once the grader closes the server: a connection it ends then is not the client's doing. */
  closing: boolean;
  /** Requests past the record's bound. */
  refused: number;
  /** The hang timers still running: cleared on close. */
  timers: Set<ReturnType<typeof setTimeout>>;
  hangLimitMs: number;
}

function record(run: Run, req: IncomingMessage, scenario: Scenario | undefined, body: { body: string; bodyBytes: number }): Attempt {
  const headers = req.headersDistinct;
  const contentType = headers['content-type']?.[0];
  return {
    seq: run.attempts.length + 1,
    method: req.method ?? '',
    target: req.url ?? '',
    ...(scenario ? { scenario } : {}),
    number: scenario ? run.attempts.filter((a) => a.scenario === scenario).length + 1 : 1,
    authorization: headers.authorization ?? [],
    idempotencyKeys: headers[KEY_HEADER] ?? [],
    ...(contentType === undefined ? {} : { contentType }),
    ...body,
    receivedAt: run.now(),
    fault: 'answer',
  };
}

function send(run: Run, attempt: Attempt, res: ServerResponse, answer: ContractAnswer, retryAfterSeconds?: number): void {
  attempt.status = answer.status;
  if (retryAfterSeconds !== undefined) attempt.retryAfterSeconds = retryAfterSeconds;
  // When the grader began sending: the client cannot have had the answer earlier, so a wait measured
  // from here is never shorter than the client's own ('finish' fires late on a busy event loop).
  attempt.endedAt = run.now();
  const headers = retryAfterSeconds === undefined ? answer.headers : { ...answer.headers, 'retry-after': String(retryAfterSeconds) };
  res.writeHead(answer.status, headers).end(answer.body);
}

function reset(run: Run, attempt: Attempt, req: IncomingMessage): void {
  attempt.endedAt = run.now();
  req.socket.resetAndDestroy();
}

/** Answers nothing: the client closing the connection ends it, else the grader's reset at the hang limit. */
function hang(run: Run, attempt: Attempt, req: IncomingMessage, res: ServerResponse): void {
  const timer = setTimeout(() => {
    run.timers.delete(timer);
    attempt.abandonedBy = 'grader';
    reset(run, attempt, req);
  }, run.hangLimitMs);
  run.timers.add(timer);
  res.on('close', () => {
    if (attempt.abandonedBy !== undefined || run.closing) return;
    clearTimeout(timer);
    run.timers.delete(timer);
    attempt.abandonedBy = 'client';
    attempt.endedAt = run.now();
  });
}

function apply(run: Run, fault: Fault, attempt: Attempt, req: IncomingMessage, res: ServerResponse, state: SessionState | undefined): void {
  attempt.fault = fault.kind;
  if (fault.kind === 'answer') return send(run, attempt, res, contractAnswer(fault.example), fault.retryAfterSeconds);
  if (fault.kind === 'reset') return reset(run, attempt, req);
  if (fault.kind === 'hang') return hang(run, attempt, req, res);
  // An ambiguous key (sent twice) counts as none: the service could not know which one is meant.
  const resumed = (state as SessionState).resume(attempt.idempotencyKeys.length === 1 ? attempt.idempotencyKeys[0] : undefined);
  if (fault.kind === 'apply-then-reset') return reset(run, attempt, req);
  attempt.replayed = resumed.replayed;
  send(run, attempt, res, resumed.answer);
}

/** Starts the server; rejects with the listen error (e.g. EADDRINUSE). */
export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const started = performance.now();
  const run: Run = { now: () => performance.now() - started, attempts: [], closing: false, refused: 0, timers: new Set(), hangLimitMs: options.hangLimitMs };
  const byPath = new Map(options.scenarios.map((s) => [resumeUrl('', s.sessionId), { scenario: s, state: createSessionState() }]));
  const server = createServer((req, res) => {
    if (run.attempts.length >= MAX_RECORDED_ATTEMPTS) {
      run.refused += 1;
      req.socket.resetAndDestroy();
      return;
    }
    let body = '';
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (body.length < BODY_KEPT) body += chunk.toString('utf8').slice(0, BODY_KEPT - body.length);
    });
    req.on('end', () => {
      const session = byPath.get(req.url ?? '');
      const attempt = record(run, req, session?.scenario, { body, bodyBytes });
      run.attempts.push(attempt);
      const script = session?.scenario.script;
      const fault: Fault = script ? (script[attempt.number - 1] ?? (script.at(-1) as Fault)) : { kind: 'answer', example: 'notFound' };
      apply(run, fault, attempt, req, res, session?.state);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    attempts: run.attempts,
    refused: () => run.refused,
    now: run.now,
    close: () =>
      new Promise<void>((resolve) => {
        run.closing = true;
        for (const timer of run.timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
