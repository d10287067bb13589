/**
 * The receiver's reading of a body (x-decisions: event-payload-forms): the spec's `ReceivedSessionEvent`
 * decides what is accepted (an event name or a session id, nested or flat), then it is normalized.
 */
import { validate } from '../../generated/received-session-event.js';
import { eventNameOf, sessionIdOf, type JsonObject } from '@session-resume-api/runtime/event-identity';
import type { SessionEvent } from '@session-resume-api/runtime/types';

/**
 * Every field as sent, `event` filled from `status` and `session.id` from `session_id` when absent.
 * Typed as a conforming sender sends it, but only an event name or a session id is required: check
 * `event` and `session` before relying on them.
 */
export type ReceivedEvent = Omit<SessionEvent, 'event' | 'session' | 'timestamp'> & {
  /** `event`, else `status`, when the body has one. */
  event?: string;
  /** `session.id`, else `session_id`, when the body names one. */
  session?: SessionEvent['session'];
  /** As sent, when sent. */
  timestamp?: string;
};

/** The normalized event, or why the body is refused. */
export type TolerantReading = { ok: true; event: ReceivedEvent } | { ok: false; message: string };

const RULE = 'a session event is a JSON object with an event name (event or status) or a session id (session.id or session_id)';

/** "a number", "an empty string", "null", ... */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * The value at a JSON pointer of the body (Ajv's instancePath), and its dotted name. The schema
 * names its fields plainly (no `/` or `~` to unescape), and Ajv reports a field only inside an
 * object, so every step of the walk is an object.
 */
function at(body: JsonObject, pointer: string): { name: string; value: unknown } {
  const path = pointer.split('/').slice(1);
  let value: unknown = body;
  for (const part of path) value = (value as JsonObject)[part];
  return { name: path.join('.'), value };
}

/** Why the body is not a ReceivedSessionEvent, field by field, from the schema's own errors. */
function whyRefused(body: JsonObject): string {
  const reasons: string[] = [];
  // Set whenever validate() returned false.
  for (const error of validate.errors!) {
    if (error.keyword === 'required') {
      const parent = at(body, error.instancePath).name;
      const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
      reasons.push(`${parent ? `${parent}.` : ''}${missing} is absent`);
    } else if (error.keyword === 'type' || error.keyword === 'minLength') {
      const { name, value } = at(body, error.instancePath);
      const wanted = (error.params as { type?: unknown }).type === 'object' ? 'an object' : 'a non-empty string';
      reasons.push(`${name} is ${kindOf(value)}, not ${wanted}`);
    }
  }
  // Each branch of the schema's anyOf names its own field, so no reason comes twice.
  return `${RULE}; this one has none: ${reasons.join('; ')}`;
}

/**
 * Checks a parsed body against `ReceivedSessionEvent` and normalizes a shallow copy.
 * @example readEventTolerantly({ status: 'done', session_id: 'sess_1' }) // { ok: true, event: { status: 'done', session_id: 'sess_1', event: 'done', session: { id: 'sess_1' } } }
 */
export function readEventTolerantly(value: unknown): TolerantReading {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: `the body is ${kindOf(value)}, not a JSON object; ${RULE}` };
  if (!validate(value)) return { ok: false, message: whyRefused(value as JsonObject) };
  return { ok: true, event: normalize(value as JsonObject) };
}

function normalize(body: JsonObject): ReceivedEvent {
  const event: Record<string, unknown> = { ...body };
  const name = eventNameOf(body);
  if (body.event === undefined && name !== undefined) event.event = name;
  const id = sessionIdOf(body);
  const session = body.session;
  // session.id is filled in only where no field as sent is replaced.
  if (
    id !== undefined &&
    (session === undefined || (typeof session === 'object' && session !== null && !Array.isArray(session) && (session as JsonObject).id === undefined))
  ) {
    event.session = { ...(session as JsonObject | undefined), id };
  }
  return event as ReceivedEvent;
}
