/** W3C Trace Context from the resume request to every delivery attempt; a malformed value means "no context". */

export interface TraceContext {
  /** `00-<trace-id: 32 hex>-<parent-id: 16 hex>-<trace-flags: 2 hex>`, lower case. */
  traceparent: string;
  /** The vendors' entries (`key=value,…`), at most {@link MAX_TRACESTATE_LENGTH} characters; absent when none. */
  tracestate?: string;
}

/** The fields of a valid `traceparent`. */
export interface ParsedTraceparent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero: the span that sent it. */
  spanId: string;
  /** Bit 0 is `sampled`. */
  traceFlags: number;
}

/** Longest `tracestate` kept; a longer one is dropped whole (the specification asks for at least 512). */
export const MAX_TRACESTATE_LENGTH = 512;
const MAX_TRACESTATE_MEMBERS = 32;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
// Simple and multi-tenant keys; values of printable ASCII except `,` and `=`, not ending in a space.
const TRACESTATE_MEMBER = /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}$/;

/**
 * Undefined for version `ff`, upper-case or missing digits, an all-zero id, or a version-00 value
 * with anything after the flags; a later version's extra fields are ignored, as the specification asks.
 */
export function parseTraceparent(value: unknown): ParsedTraceparent | undefined {
  if (typeof value !== 'string' || value.length < 55 || value.length > 512) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** The version-00 `traceparent` of these fields. */
export function formatTraceparent({ traceId, spanId, traceFlags }: ParsedTraceparent): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Several header values are one list; a malformed list, one over {@link MAX_TRACESTATE_LENGTH} or
 * 32 members, or with a key twice, is dropped whole (the `traceparent` stays).
 */
export function readTracestate(value: unknown): string | undefined {
  const joined = Array.isArray(value) ? (value.every((one) => typeof one === 'string') ? value.join(',') : undefined) : value;
  if (typeof joined !== 'string' || joined.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = joined
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member.length > 0);
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    if (!TRACESTATE_MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return undefined;
    keys.add(key);
  }
  return members.join(',');
}

/**
 * Undefined without exactly one valid `traceparent`; kept in its version-00 form, `tracestate` only beside it.
 */
export function readTraceContext(traceparent: unknown, tracestate?: unknown): TraceContext | undefined {
  const single: unknown = Array.isArray(traceparent) ? (traceparent.length === 1 ? traceparent[0] : undefined) : traceparent;
  const parsed = parseTraceparent(single);
  if (!parsed) return undefined;
  // A version-00 value (exactly 55 characters) is already in its kept form.
  const kept = (single as string).length === 55 && (single as string).startsWith('00-') ? (single as string) : formatTraceparent(parsed);
  const state = tracestate === undefined ? undefined : readTracestate(tracestate);
  return state === undefined ? { traceparent: kept } : { traceparent: kept, tracestate: state };
}

/** A trace context read back from storage, or undefined when invalid. */
export function checkTraceContext(value: unknown): TraceContext | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  return readTraceContext(traceparent, tracestate);
}

/** Random ids, marked sampled so a receiver's parent-based sampler records its side (x-decisions: webhook-outbox). */
export function newTraceContext(): TraceContext {
  const traceId = randomHex(16);
  const spanId = randomHex(8);
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return newTraceContext();
  return { traceparent: `00-${traceId}-${spanId}-01` };
}

// Random bytes drawn in blocks: one getRandomValues call costs about as much as a resume's other header reads.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += HEX[pool[poolAt++]!];
  return hex;
}

/** The headers of one delivery attempt carrying `trace`. */
export function traceHeaders(trace: TraceContext): Record<string, string> {
  return trace.tracestate ? { traceparent: trace.traceparent, tracestate: trace.tracestate } : { traceparent: trace.traceparent };
}
