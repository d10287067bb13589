/** The Server-Sent Events parser of `listen`: fields, comments, ids kept across messages, line ends split across chunks. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from '../../cli/listen/sse-lines.js';

const parse = (chunks: string[]) => {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const parser = createSseParser(
    (m) => messages.push(m),
    (ms) => retries.push(ms),
  );
  for (const chunk of chunks) parser.push(chunk);
  return { messages, retries, lastEventId: parser.lastEventId() };
};

describe('createSseParser', () => {
  it('reads event, id, multi-line data, retry; skips comments and messages without data', () => {
    const { messages, retries, lastEventId } = parse([': hello\n\nretry: 250\nevent: session-event\nid: 7\ndata: {"a":\ndata: 1}\n\nid: 8\n\ndata:x\n\n']);
    expect(messages).toEqual([
      { event: 'session-event', data: '{"a":\n1}', lastEventId: '7' },
      { event: 'message', data: 'x', lastEventId: '8' },
    ]);
    expect(retries).toEqual([250]);
    expect(lastEventId).toBe('8');
  });

  it('gives the same messages however the stream is cut, with \\n, \\r\\n or \\r line ends', () => {
    const stream = (end: string) => ['event: session-event', 'id: 1', 'data: one', '', 'id: 2', 'data: two', '', ''].join(end);
    fc.assert(
      fc.property(fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 6 }), (end, cuts) => {
        const text = stream(end);
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points, text.length].slice(1).map((to, i, all) => text.slice(i === 0 ? 0 : all[i - 1], to));
        expect(parse(chunks).messages.map((m) => [m.data, m.lastEventId])).toEqual([
          ['one', '1'],
          ['two', '2'],
        ]);
      }),
    );
  });
});
