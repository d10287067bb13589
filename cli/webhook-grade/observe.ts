/**
 * The `--observe` format: a URL of the receiver answering GET with one JSON object whose
 * members are event keys and whose values are how many times each event was processed, e.g.
 * `{"session.resumed sess_1 2026-11-25T10:00:00.000Z": 1}`. The key is the event name, the
 * session id and the timestamp as received, joined by single spaces (the dedupe identity).
 * Other members are ignored; an answer over 1 MB is refused.
 */
import { eventNameOf, sessionIdOf, type JsonObject } from '@session-resume-api/runtime/event-identity';

/** Largest observe answer read, in bytes. */
export const MAX_OBSERVE_BYTES = 1_048_576;

/** The observe key of an event: event name, session id and timestamp, joined by spaces. */
export function observeKey(event: JsonObject): string {
  return [eventNameOf(event), sessionIdOf(event), event.timestamp].map(String).join(' ');
}

/** Counts read from the observe URL, or why none could be read. */
export type ObservedCounts = { ok: true; counts: ReadonlyMap<string, number> } | { ok: false; message: string };

/** GETs `url` once (deadline `timeoutMs`) and reads the counts. */
export async function readObserved(url: string, timeoutMs: number): Promise<ObservedCounts> {
  let text: string;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (response.status !== 200) return { ok: false, message: `--observe answered ${response.status}; it must answer 200 with the counts.` };
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { ok: false, message: `--observe gave no answer (${cause}).` };
  }
  if (text.length > MAX_OBSERVE_BYTES) return { ok: false, message: '--observe answered more than 1 MB: keep the counts of the last hour only.' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, message: '--observe did not answer JSON: answer an object of event key → times processed.' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, message: '--observe must answer a JSON object of event key → times processed.' };
  const counts = new Map<string, number>();
  for (const [key, value] of Object.entries(body)) if (typeof value === 'number' && Number.isInteger(value)) counts.set(key, value);
  return { ok: true, counts };
}
