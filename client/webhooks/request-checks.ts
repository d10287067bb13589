/** Checks before the body is read, and each answer's headers, written once for the node and web adapters. */
import { errorResult, type ReceiveResult } from './answers.js';
import { tokenFromUrl, urlTokensEqual } from './url-token.js';
import type { WebhookHeaders } from './webhook-headers.js';

/** The parts of a request checked before its body. */
export interface RequestLine {
  method: string | undefined;
  url: string | undefined;
  contentLength: string | null | undefined;
}

/** The limits the adapters enforce. */
export interface RequestLimits {
  urlToken: string | undefined;
  maxBodyBytes: number;
}

/**
 * 404 for a wrong URL token (x-decisions: webhook-signing), 405 for a method other than POST, 413 for
 * a declared length over the limit; undefined: read the body.
 */
export function checkRequestLine(line: RequestLine, limits: RequestLimits): ReceiveResult | undefined {
  if (limits.urlToken !== undefined && !urlTokensEqual(limits.urlToken, tokenFromUrl(line.url))) return errorResult(404, 'not_found', 'Not found.');
  if (line.method !== 'POST') return errorResult(405, 'method_not_allowed', `Method ${line.method} is not allowed: session events are POSTed.`);
  const declared = Number(line.contentLength);
  if (line.contentLength && Number.isFinite(declared) && declared > limits.maxBodyBytes) return tooLarge(limits.maxBodyBytes, declared);
  return undefined;
}

/** Its declared size when known, else found while reading. */
export function tooLarge(maxBodyBytes: number, declared?: number): ReceiveResult {
  return declared === undefined
    ? errorResult(413, 'payload_too_large', `The body is larger than ${maxBodyBytes} bytes, the most this receiver accepts.`)
    : errorResult(413, 'payload_too_large', `The body has ${declared} bytes; this receiver accepts at most ${maxBodyBytes}.`);
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** The same object every time: no allocation per answer. */
export const ANSWER_HEADERS: Readonly<Record<ReceiveResult['status'], Readonly<Record<string, string>>>> = {
  200: JSON_HEADERS,
  400: JSON_HEADERS,
  401: JSON_HEADERS,
  404: JSON_HEADERS,
  405: { ...JSON_HEADERS, allow: 'POST' },
  // The rest of a body too large is not read: the connection cannot carry another request.
  413: { ...JSON_HEADERS, connection: 'close' },
  503: { ...JSON_HEADERS, 'retry-after': '5' },
};

/** A failure no input can cause (the core never throws): the sender retries. */
export const UNEXPECTED_FAILURE = errorResult(503, 'service_unavailable', 'Unexpected receiver failure; retry later.');

/** A body a framework already read (fastify, koa, NestJS): raw bytes or text, never a parsed object. */
export interface ReadRequest {
  method: string | undefined;
  /** The path and query as requested. */
  url: string | undefined;
  headers: WebhookHeaders;
  /** Undefined when there was none. */
  body: string | Uint8Array | undefined;
}

/** An answer with its headers, for a framework's reply. */
export type HttpAnswer = ReceiveResult & { headers: Readonly<Record<string, string>> };
