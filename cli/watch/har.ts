/**
 * Reads traffic recorded elsewhere: a HAR 1.2 document (a browser's export, a proxy's) becomes
 * exchanges in the order they started. Outside input: every field `watch` reads is checked
 * against a schema of the part of HAR it uses, and a bad document is refused with the place
 * at fault, never half read.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { headerList, type Exchange } from './exchange.js';

/** Thrown for a document that is not HAR 1.2 as `watch` reads it; the message names the place at fault. */
export class HarError extends Error {
  override name = 'HarError';
}

const header = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };

/** One entry, the part of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) that `watch` reads. */
const ENTRY_SCHEMA = {
  type: 'object',
  required: ['startedDateTime', 'time', 'request', 'response'],
  properties: {
    startedDateTime: { type: 'string', minLength: 1 },
    // Playwright writes -1 for a request that got no answer (as HAR does for a timing not known).
    time: { type: 'number', minimum: -1 },
    request: {
      type: 'object',
      required: ['method', 'url', 'headers'],
      properties: {
        method: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
        url: { type: 'string' },
        headers: { type: 'array', items: header },
        postData: { type: 'object', properties: { text: { type: 'string' } } },
      },
    },
    response: {
      type: 'object',
      required: ['status', 'headers'],
      properties: {
        // 0 (browsers' exports) or -1 (Playwright): the request got no answer.
        status: { type: 'integer', minimum: -1, maximum: 999 },
        headers: { type: 'array', items: header },
        content: { type: 'object', properties: { text: { type: 'string' }, encoding: { type: 'string' } } },
      },
    },
  },
} as const;

/** A whole HAR document, as `watch` reads it. */
const HAR_SCHEMA = {
  type: 'object',
  required: ['log'],
  properties: { log: { type: 'object', required: ['entries'], properties: { entries: { type: 'array', items: ENTRY_SCHEMA } } } },
} as const;

const ajv = new Ajv2020({ strict: false });
const validateHar = ajv.compile(HAR_SCHEMA);
const validateEntry = ajv.compile(ENTRY_SCHEMA);

interface HarHeader {
  name: string;
  value: string;
}
interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: HarHeader[]; postData?: { text?: string } };
  response: { status: number; headers: HarHeader[]; content?: { text?: string; encoding?: string } };
}

/** Whether a request is a webhook delivery: it carries a Standard Webhooks header. */
function isDelivery(headers: readonly HarHeader[]): boolean {
  return headers.some((h) => /^(webhook|svix)-(id|timestamp|signature)$/i.test(h.name));
}

/** Reads a HAR document's text into exchanges, in start order. Throws `HarError`. */
export function parseHar(text: string): Exchange[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    // The parser's message quotes the text, which may hold a token: it is not repeated.
    throw new HarError('not JSON', { cause });
  }
  if (!validateHar(document)) {
    const first = validateHar.errors?.[0];
    throw new HarError(`not a HAR 1.2 log: ${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}`);
  }
  const entries = (document as { log: { entries: HarEntry[] } }).log.entries;
  return inStartOrder(entries.map((entry, i) => exchangeOf(entry, i)));
}

/** Exchanges in the order their requests started (a HAR lists them as its writer did). */
export function inStartOrder(exchanges: Exchange[]): Exchange[] {
  return exchanges.sort((a, b) => a.startedAt - b.startedAt);
}

/** Reads entry `i` of a HAR log, parsed on its own. Throws `HarError` naming the place at fault. */
export function readHarEntry(entry: unknown, i: number): Exchange {
  if (!validateEntry(entry)) {
    const first = validateEntry.errors?.[0];
    throw new HarError(`not a HAR 1.2 log: /log/entries/${i}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`);
  }
  return exchangeOf(entry as HarEntry, i);
}

function exchangeOf(entry: HarEntry, i: number): Exchange {
  const startedAt = Date.parse(entry.startedDateTime);
  if (!Number.isFinite(startedAt)) throw new HarError(`/log/entries/${i}/startedDateTime ${JSON.stringify(entry.startedDateTime)} is not a date`);
  let url: URL;
  try {
    url = new URL(entry.request.url);
  } catch {
    throw new HarError(`/log/entries/${i}/request/url ${JSON.stringify(entry.request.url)} is not an absolute URL`);
  }
  const content = entry.response.content;
  const responseBody =
    content?.text === undefined ? undefined : content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
  return {
    kind: isDelivery(entry.request.headers) ? 'webhook' : 'api',
    method: entry.request.method.toUpperCase(),
    target: `${url.pathname}${url.search}`,
    startedAt,
    endedAt: startedAt + Math.max(0, entry.time),
    requestHeaders: headerList(entry.request.headers.map((h) => [h.name, h.value] as const)),
    requestBody: entry.request.postData?.text ?? '',
    // HAR writes 0, Playwright -1, for a request that got no answer.
    status: entry.response.status <= 0 ? undefined : entry.response.status,
    responseHeaders: headerList(entry.response.headers.map((h) => [h.name, h.value] as const)),
    responseBody,
  };
}
