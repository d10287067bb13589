/**
 * A Server-Sent Events parser (WHATWG HTML "Interpreting an event stream"). Hand-written: the current
 * majors of eventsource and eventsource-parser need Node ≥ 22.12, and this package supports Node 20.
 */

export interface SseMessage {
  /** The `event:` field (default `message`). */
  event: string;
  data: string;
  /** The last event id seen so far (the stream's `id:` fields), when any. */
  lastEventId: string | undefined;
}

/** Longest message buffered, in characters; a longer one is dropped (a feed entry is a few hundred). */
export const MAX_SSE_MESSAGE_CHARS = 1_048_576;

/** Feed it decoded text chunks in order; it calls `onMessage` per message and `onRetry` for `retry:`. */
export function createSseParser(onMessage: (message: SseMessage) => void, onRetry: (ms: number) => void = () => undefined) {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let size = 0;
  let lastEventId: string | undefined;
  let skipLf = false;
  const dispatch = () => {
    if (data.length > 0 && size <= MAX_SSE_MESSAGE_CHARS) onMessage({ event: event || 'message', data: data.join('\n'), lastEventId });
    event = '';
    data = [];
    size = 0;
  };
  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') {
      size += value.length;
      if (size <= MAX_SSE_MESSAGE_CHARS) data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    return undefined;
  };
  return {
    push(chunk: string): void {
      // A \r that ended the previous chunk may be the first half of \r\n.
      buffer += skipLf && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
      skipLf = chunk.length > 0 ? buffer.endsWith('\r') : skipLf;
      const lines = buffer.split(/\r\n|\r|\n/);
      // The last piece is a line still arriving.
      buffer = lines.pop() ?? '';
      for (const text of lines) line(text);
      if (buffer.length > MAX_SSE_MESSAGE_CHARS) buffer = '';
    },
    /** The id to send as Last-Event-ID on reconnection. */
    lastEventId: () => lastEventId,
  };
}
