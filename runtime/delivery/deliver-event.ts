/**
 * One delivery attempt as the service makes it (URL rules, every DNS address checked, pinned connection, no redirects,
 * one deadline, only a 200 counts), on node:https: fetch/undici follow redirects and skip custom lookups.
 */
import { WEBHOOK_DELIVERY_POLICY } from '../behaviour.js';
import { VERSION } from '../version.js';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { EndpointNotice, SessionEvent } from '../types.js';
import { validateWebhookUrl } from '../webhook-url.js';
import type { DeliveryAgents } from './delivery-agents.js';
import { resolveWebhookHost, type CheckedAddress, type WebhookLookup } from './resolve-webhook-host.js';

/** Options of one delivery attempt. */
export interface DeliverEventOptions {
  /**
   * One deadline for DNS + connect + TLS + answer, in ms.
   * @defaultValue {@link DELIVERY_TIMEOUT_MS}
   */
  timeoutMs?: number;
  /**
   * Allow loopback and private receivers, for local testing only; link-local stays refused.
   * @defaultValue `false`
   */
  allowPrivate?: boolean;
  /**
   * CLI testing aid: allow loopback receivers, `http://` included, and skip certificate
   * verification on a loopback pinned address without a `ca`.
   * @defaultValue `false`
   */
  insecureLocalhost?: boolean;
  /**
   * CA certificate(s) to trust instead of the system roots (PEM).
   * @defaultValue none: the system roots
   */
  ca?: string | Buffer;
  /**
   * Resolver returning all addresses of a host.
   * @defaultValue the system's getaddrinfo
   */
  lookup?: WebhookLookup;
  /**
   * Bytes of the answer body read; the rest is cut.
   * @defaultValue {@link MAX_RESPONSE_BYTES} (65 536)
   */
  maxResponseBytes?: number;
  /**
   * User-Agent header.
   * @defaultValue `session-resume-api-webhooks/<version>`
   */
  userAgent?: string;
  /**
   * Extra headers of this attempt, computed from the exact body sent (e.g. Standard Webhooks signing).
   * @defaultValue none: only Host, Content-Type, Content-Length and User-Agent
   */
  headers?: (body: string) => Record<string, string>;
  /**
   * Keep-alive connections, one agent per checked address.
   * @defaultValue none: a new connection per attempt
   */
  agents?: DeliveryAgents;
}

/** Why a delivery failed. */
export type DeliveryFailureReason =
  'invalid_url' | 'dns_failed' | 'blocked_address' | 'tls_failed' | 'connection_failed' | 'timeout' | 'redirect' | 'bad_status';

/** The receiver's certificate as seen during the handshake. */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  /** Not-after date as OpenSSL prints it, e.g. "Nov 22 17:00:00 2026 GMT". */
  validTo: string;
}

/** What was read of the answer body: at most `maxResponseBytes`, as UTF-8 text. */
export interface ResponseSummary {
  body: string;
  bytes: number;
  truncated: boolean;
}

/** Fields known once a connection was attempted. */
interface AttemptDetails {
  durationMs: number;
  resolvedAddress?: string;
  certificate?: CertificateSummary;
  response?: ResponseSummary;
  /** The answer's Retry-After header, as sent, when it had one. */
  retryAfter?: string;
}

/** A status that counts as delivered (x-delivery-policy `deliveredStatuses`). */
export type DeliveredStatus = (typeof WEBHOOK_DELIVERY_POLICY.deliveredStatuses)[number];

/** Outcome of `deliverEvent`; a failure carries a message saying what to check. */
export type DeliveryResult =
  | (AttemptDetails & { delivered: true; status: DeliveredStatus; resolvedAddress: string })
  | (AttemptDetails & { delivered: false; reason: DeliveryFailureReason; status?: number; message: string });

/** Default deadline of one attempt: a receiver answers 200 within x-delivery-policy `answerDeadlineMs`. */
export const DELIVERY_TIMEOUT_MS = WEBHOOK_DELIVERY_POLICY.answerDeadlineMs;
/** Default cap on the answer body read, in bytes. */
export const MAX_RESPONSE_BYTES = 65_536;
const DEFAULT_USER_AGENT = `session-resume-api-webhooks/${VERSION}`;

// OpenSSL verification results and Node TLS errors (node:tls, "X509 certificate error codes").
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_|EPROTO$)/;

/** POSTs `JSON.stringify(event)` once: delivered is a 200 within `timeoutMs`. Never throws for delivery problems; redirects fail (x-decisions: webhook-ack). */
export async function deliverEvent(
  url: string | URL,
  /** The body: a session event, or the operator's notice of an endpoint's change of state. */
  event: SessionEvent | EndpointNotice,
  options: DeliverEventOptions = {},
): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const rules = { allowPrivate: options.allowPrivate, allowLoopback: options.insecureLocalhost };

  // http:// is judged as its https:// twin here, then allowed only if every address is loopback.
  const plain = Boolean(options.insecureLocalhost) && /^http:\/\//i.test(String(url));
  const check = validateWebhookUrl(plain ? String(url).replace(/^http:/i, 'https:') : url, rules);
  if (!check.ok) {
    return {
      delivered: false,
      reason: check.code === 'blocked_address' ? 'blocked_address' : 'invalid_url',
      message: `${check.reason} (a webhook URL must be a valid https:// URL)`,
      durationMs: elapsed(),
    };
  }
  const target = plain ? new URL(String(url)) : check.url;

  // The deadline covers DNS as well: the receiver is judged on the whole 5 s (§6 rule 2).
  const deadline = createDeadline(timeoutMs);
  try {
    const resolution = await Promise.race([resolveWebhookHost(target.hostname, { ...rules, lookup: options.lookup }), deadline.reached]);
    if (resolution === 'timeout') {
      return { delivered: false, reason: 'timeout', message: timeoutMessage(target, timeoutMs, 'DNS'), durationMs: elapsed() };
    }
    if (!resolution.ok) {
      return { delivered: false, reason: resolution.reason, message: resolution.message, durationMs: elapsed() };
    }
    if (plain && resolution.addresses.some((a) => a.addressClass !== 'loopback')) {
      return { delivered: false, reason: 'invalid_url', message: PLAIN_HTTP_LOOPBACK_ONLY, durationMs: elapsed() };
    }
    // Every address passed; connect to the first, pinned (no second lookup, no rebinding).
    const pinned = resolution.addresses[0] as CheckedAddress;
    const body = JSON.stringify(event);
    const attempt = { url: target, pinned, body, deadline: deadline.reached, timeoutMs, options, elapsed };
    const result = await post(attempt, Boolean(options.agents));
    // A kept connection the receiver closed just as it was reused (request.reusedSocket): once more on a
    // new one, within the same deadline; a new connection is never "reused", so this ends.
    return (result === STALE_CONNECTION ? await post(attempt, false) : result) as DeliveryResult;
  } finally {
    deadline.cancel();
  }
}

/** How often the stall watch ticks, ms, and how late a tick may be before it counts as a stall. */
const TICK_MS = 100;
const STALL_MS = 200;
let stalledMs = 0;
let watchers = 0;
let ticker: NodeJS.Timeout | undefined;

/**
 * Counts the time this process stands still (CPU stall, SIGSTOP, blocked loop) while a deadline is
 * pending: a tick more than STALL_MS late adds its lateness. Returns the loss so far and the release.
 */
function watchStalls(): { lost(): number; release(): void } {
  if (watchers++ === 0) {
    let last = performance.now();
    ticker = setInterval(() => {
      const now = performance.now();
      if (now - last - TICK_MS > STALL_MS) stalledMs += now - last - TICK_MS;
      last = now;
    }, TICK_MS);
    ticker.unref();
  }
  const from = stalledMs;
  let released = false;
  return {
    lost: () => stalledMs - from,
    release() {
      if (released) return;
      released = true;
      if (--watchers === 0) clearInterval(ticker);
    },
  };
}

/**
 * An attempt's deadline in this process's own running time: time stood still is given back (up to
 * `ms`), and the check runs after the poll phase so an answer already arrived is read first.
 * Otherwise an instance waking from a stall would count answers as timeouts and send again.
 */
function createDeadline(ms: number): { reached: Promise<'timeout'>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let added = 0;
  let cancelled = false;
  const stalls = watchStalls();
  const reached = new Promise<'timeout'>((resolve) => {
    const arm = (delay: number) => {
      // After the timers phase, so a stall-watch tick that was due as well has counted.
      timer = setTimeout(
        () =>
          setImmediate(() => {
            if (cancelled) return;
            const more = Math.min(stalls.lost() - added, ms - added);
            if (more <= 0) {
              stalls.release();
              resolve('timeout');
              return;
            }
            added += more;
            arm(more);
          }),
        delay,
      );
    };
    arm(ms);
  });
  return {
    reached,
    cancel() {
      cancelled = true;
      clearTimeout(timer);
      stalls.release();
    },
  };
}

const PLAIN_HTTP_LOOPBACK_ONLY =
  'Plain http:// is allowed only for a loopback receiver with --insecure-localhost (local testing); webhook URLs must use https://.';

function pinnedLookup({ address, family }: CheckedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    // Node ≥ 20 asks for `all` when autoSelectFamily is on (net.connect, "lookup").
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function timeoutMessage(url: URL, timeoutMs: number, stage: string): string {
  return (
    `${url.host} gave no 200 within ${timeoutMs} ms (stuck at ${stage}): a receiver must answer within 5 s and ` +
    'process afterwards; check its response time and that it accepts connections from outside.'
  );
}

interface Attempt {
  url: URL;
  pinned: CheckedAddress;
  body: string;
  deadline: Promise<'timeout'>;
  timeoutMs: number;
  options: DeliverEventOptions;
  elapsed: () => number;
}

/** What `post` answers when a reused connection was reset before any answer. */
const STALE_CONNECTION = Symbol('stale connection');

interface AttemptState {
  stage: string;
  certificate?: CertificateSummary;
}

function attemptDetails(attempt: Attempt, state: AttemptState) {
  return { durationMs: attempt.elapsed(), resolvedAddress: attempt.pinned.address, ...(state.certificate ? { certificate: state.certificate } : {}) };
}

/** The request of one attempt: pinned to the checked address, SNI and TLS checks as the target asks. */
function openRequest(attempt: Attempt, keepAlive: boolean): ClientRequest {
  const { url, pinned, body, options } = attempt;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const isLiteral = hostname === pinned.address;
  // A given CA is always checked, on loopback too: a self-signed local receiver can be verified.
  const skipVerify = Boolean(options.insecureLocalhost) && pinned.addressClass === 'loopback' && !options.ca;
  const plain = url.protocol === 'http:';
  return (plain ? (httpRequest as typeof request) : request)({
    method: 'POST',
    hostname,
    port: url.port || (plain ? 80 : 443),
    path: `${url.pathname}${url.search}`,
    headers: {
      host: url.host,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
      ...options.headers?.(body),
    },
    lookup: pinnedLookup(pinned),
    // SNI carries the host name, never an IP literal (RFC 6066 §3); identity is checked against it.
    ...(isLiteral || plain ? {} : { servername: hostname }),
    ...(options.ca && !plain ? { ca: options.ca } : {}),
    ...(plain ? {} : { rejectUnauthorized: !skipVerify }),
    agent: keepAlive && options.agents ? options.agents.agentFor(plain, pinned.address) : false,
  });
}

function trackStages(req: ClientRequest, plain: boolean, state: AttemptState): void {
  const readCertificate = (socket: TLSSocket) => {
    const cert = socket.getPeerCertificate();
    if (cert && Object.keys(cert).length > 0) {
      state.certificate = { subject: formatName(cert.subject), issuer: formatName(cert.issuer), validTo: cert.valid_to };
    }
  };
  req.on('socket', (socket) => {
    if (req.reusedSocket) {
      // A kept connection: connected and verified when it was opened.
      state.stage = 'waiting for the answer';
      if (!plain) readCertificate(socket as TLSSocket);
      return;
    }
    socket.once('connect', () => (state.stage = plain ? 'waiting for the answer' : 'TLS handshake'));
    socket.once('secureConnect', () => {
      state.stage = 'waiting for the answer';
      readCertificate(socket as TLSSocket);
    });
  });
}

/** The result of a request that failed before any answer: TLS, plain HTTP where TLS was expected, or the connection. */
function failureResult(error: NodeJS.ErrnoException, attempt: Attempt, state: AttemptState): DeliveryResult {
  const { url, pinned } = attempt;
  const code = error.code ?? error.message;
  const details = attemptDetails(attempt, state);
  const tls = TLS_CODE.test(code) || state.stage === 'TLS handshake';
  if (tls && isPlainHttpAnswer(error)) {
    return {
      delivered: false,
      reason: 'tls_failed',
      message:
        `${url.host} (${pinned.address}) did not answer TLS: is it plain HTTP? A webhook receiver must serve HTTPS; ` +
        'for a local plain-HTTP receiver use http:// with --insecure-localhost.',
      ...details,
    };
  }
  if (tls) {
    return {
      delivered: false,
      reason: 'tls_failed',
      message:
        `TLS handshake with ${url.host} (${pinned.address}) failed (${code}: ${error.message}): check the certificate ` +
        `is valid for ${url.hostname.replace(/^\[|\]$/g, '')}, not expired, and chained to a trusted CA.`,
      ...details,
    };
  }
  return {
    delivered: false,
    reason: 'connection_failed',
    message:
      `Could not ${state.stage === 'connect' ? 'connect to' : 'get an answer from'} ${pinned.address}:${url.port || 443} ` +
      `(${code}): check the receiver accepts incoming connections from outside.`,
    ...details,
  };
}

const isDeliveredStatus = (status: number): status is DeliveredStatus => (WEBHOOK_DELIVERY_POLICY.deliveredStatuses as readonly number[]).includes(status);

/** The result of an answer: 200 delivered; a redirect (never followed) or any other status not. */
function answerResult(res: IncomingMessage, response: ResponseSummary, attempt: Attempt, state: AttemptState): DeliveryResult {
  const status = res.statusCode ?? 0;
  const { url } = attempt;
  const details = attemptDetails(attempt, state);
  if (isDeliveredStatus(status)) return { delivered: true, status, ...details, response };
  if (status >= 300 && status < 400) {
    // Redirects are never followed (x-decisions: webhook-ack): the target could be anywhere.
    const location = res.headers.location ? ` to ${res.headers.location}` : '';
    return {
      delivered: false,
      reason: 'redirect',
      status,
      message: `${url.host} answered ${status} (redirect${location}); redirects are not followed: configure the final URL, which must answer 200.`,
      ...details,
      response,
    };
  }
  const retryAfter = res.headers['retry-after'];
  return {
    delivered: false,
    reason: 'bad_status',
    status,
    message: `${url.host} answered ${status}; only 200 counts as delivered: check the receiver answers 200 once it has recorded the event.`,
    ...details,
    response,
    ...(retryAfter ? { retryAfter } : {}),
  };
}

/** Reads at most `maxBytes`; `whole` when read to the end, so a kept connection may serve the next delivery. */
function readAnswer(res: IncomingMessage, maxBytes: number, isSettled: () => boolean, conclude: (response: ResponseSummary, whole: boolean) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let truncated = false;
  const done = (whole: boolean) => conclude({ body: Buffer.concat(chunks).toString('utf8'), bytes, truncated }, whole);
  res.on('data', (chunk: Buffer) => {
    if (isSettled()) return;
    const room = maxBytes - bytes;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      bytes += room;
      truncated = true;
      done(false);
      return;
    }
    chunks.push(chunk);
    bytes += chunk.length;
  });
  res.on('end', () => done(true));
  // An answer cut mid-body still carries its status line: judge on that.
  res.on('error', () => done(false));
  res.on('close', () => done(false));
}

/** One POST of the attempt; `STALE_CONNECTION` when a reused connection was reset before any answer. */
function post(attempt: Attempt, keepAlive: boolean): Promise<DeliveryResult | typeof STALE_CONNECTION> {
  const { url, deadline, timeoutMs, options } = attempt;
  const plain = url.protocol === 'http:';
  return new Promise<DeliveryResult | typeof STALE_CONNECTION>((resolve) => {
    const state: AttemptState = { stage: 'connect' };
    let settled = false;
    const finish = (result: DeliveryResult | typeof STALE_CONNECTION, keep = false) => {
      if (settled) return;
      settled = true;
      if (!keep || !keepAlive) req.destroy();
      resolve(result);
    };
    const req = openRequest(attempt, keepAlive);
    void deadline.then(() =>
      finish({ delivered: false, reason: 'timeout', message: timeoutMessage(url, timeoutMs, state.stage), ...attemptDetails(attempt, state) }),
    );
    trackStages(req, plain, state);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) return finish(STALE_CONNECTION);
      finish(failureResult(error, attempt, state));
    });
    req.on('response', (res) => {
      state.stage = 'reading the answer';
      readAnswer(
        res,
        options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
        () => settled,
        (response, whole) => {
          const result = answerResult(res, response, attempt, state);
          // A redirect's connection is never kept.
          finish(result, whole && !(result.delivered === false && result.reason === 'redirect'));
        },
      );
    });
    req.end(attempt.body);
  });
}

/** OpenSSL's answer to a TLS client that got plain HTTP back (`wrong version number`, `packet length too long`, `http request`). */
function isPlainHttpAnswer(error: NodeJS.ErrnoException): boolean {
  return /wrong[ _]version[ _]number|packet[ _]length[ _]too[ _]long|record[ _]length[ _]mismatch/i.test(`${error.code ?? ''} ${error.message}`);
}

/** "CN=localhost, O=Example" from a certificate subject or issuer object. */
function formatName(name: Record<string, string | string[] | undefined> | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : (value ?? '')}`)
    .join(', ');
}
