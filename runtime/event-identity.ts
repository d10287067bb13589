/** The identity of a received session event (x-decisions: event-timestamp, event-payload-forms), computed alike on both sides. */
import { sha256Hex } from './sha256.js';

/** A JSON object as received. */
export type JsonObject = Readonly<Record<string, unknown>>;

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The event name: `event` when a non-empty string, else `status` when one (the flat form), else undefined. */
export function eventNameOf(body: JsonObject): string | undefined {
  return nonEmpty(body.event) ?? nonEmpty(body.status);
}

/** The session id: `session.id` when a non-empty string, else `session_id` when one (the flat form), else undefined. */
export function sessionIdOf(body: JsonObject): string | undefined {
  const session = body.session;
  const nested = typeof session === 'object' && session !== null ? (session as JsonObject).id : undefined;
  return nonEmpty(nested) ?? nonEmpty(body.session_id);
}

/**
 * Members sorted by name, no whitespace: bodies differing only in order or spacing have one text.
 * @example canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .sort()
      .filter((name) => (value as JsonObject)[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as JsonObject)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * sha256 hex of `[event name, session id, timestamp]` when all three are present (the timestamp as
 * sent: its format is not fixed), else of `body:` and the canonical JSON. Hex has no `:`, so it is a
 * valid BullMQ id. The stores check the sender's `webhook-id` beside it.
 */
export function dedupeKey(body: JsonObject): string {
  const name = eventNameOf(body);
  const id = sessionIdOf(body);
  const text =
    name !== undefined && id !== undefined && body.timestamp !== undefined ? JSON.stringify([name, id, body.timestamp]) : `body:${canonicalJson(body)}`;
  return sha256Hex(text);
}
