/**
 * A receiver written the naive way, kept to show what `session-resume-api webhook grade`
 * reports: it processes every delivery (no dedupe), reads only the nested `session.id`, and
 * refuses event names it does not know. Do not copy it: copy ../webhook-receiver/ instead.
 *
 *   PORT=3002 node --import tsx examples/naive-receiver/server.ts
 *
 * POST /hooks takes deliveries; GET /processed answers the `--observe` format: event key
 * (event, session id and timestamp joined by spaces) → times processed, the last 10,000 keys.
 */
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 3002);
const KNOWN_EVENTS = new Set(['session.resumed', 'session.paused']);
/** Times each event was processed; the oldest key is forgotten beyond 10,000. */
const processed = new Map<string, number>();

const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

function receive(text: string): { status: number; body: string } {
  let event: { event?: string; session?: { id?: string }; timestamp?: string };
  try {
    event = JSON.parse(text) as typeof event;
  } catch {
    return json(400, { error: 'not JSON' });
  }
  // Mistake: the flat form (session_id) and new event names are refused, so the service retries them.
  if (typeof event.session?.id !== 'string') return json(400, { error: 'session.id is required' });
  if (!KNOWN_EVENTS.has(String(event.event))) return json(400, { error: `unknown event ${String(event.event)}` });
  // Mistake: no dedupe, every copy of an event is processed again.
  const key = `${event.event} ${event.session.id} ${event.timestamp}`;
  processed.set(key, (processed.get(key) ?? 0) + 1);
  if (processed.size > 10_000) processed.delete(processed.keys().next().value as string);
  return json(200, { ok: true });
}

createServer((req, res) => {
  let text = '';
  req.on('data', (chunk: Buffer) => (text += chunk.toString()));
  req.on('end', () => {
    const answer =
      req.method === 'POST' && req.url === '/hooks'
        ? receive(text)
        : req.method === 'GET' && req.url === '/processed'
          ? json(200, Object.fromEntries(processed))
          : json(404, { error: 'not found' });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
}).listen(port, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', port })));
