/**
 * How `listen` reconnects to the sandbox's event feed after a network drop (no sockets: fetch is
 * given): the wait doubles from `reconnectDelayMs` up to 30 s, the one backoff of
 * runtime/backoff.ts, and starts again from `reconnectDelayMs` once a connection was made.
 */
import { describe, expect, it } from 'vitest';
import { followEventFeed, sleep } from '../../cli/listen/follow-feed.js';

describe('listen: reconnecting to the feed', () => {
  it('doubles the wait after each drop, and starts again from reconnectDelayMs after a connection', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    let calls = 0;
    const fetch = (async () => {
      calls++;
      // The 7th call connects, and the server closes the feed at once.
      if (calls === 7) return new Response(new ReadableStream({ start: (c) => c.close() }), { status: 200 });
      if (calls === 9) controller.abort();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    }) as typeof globalThis.fetch;
    await followEventFeed({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'sandbox_x',
      signal: controller.signal,
      onEvent: () => {},
      onStatus: (l) => void lines.push(l),
      reconnectDelayMs: 1,
      fetch,
    });
    const waits = lines.flatMap((l) => /reconnecting in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 1, 2]);
  });

  it('never waits longer than 30 s', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const fetch = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof globalThis.fetch;
    // The first wait is reported, then the run stops: the abort ends the wait.
    const onStatus = (line: string) => {
      lines.push(line);
      setTimeout(() => controller.abort(), 0);
    };
    await followEventFeed({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'sandbox_x',
      signal: controller.signal,
      onEvent: () => {},
      onStatus,
      reconnectDelayMs: 45_000,
      fetch,
    });
    expect(lines).toContainEqual(expect.stringMatching(/reconnecting in 30000 ms/));
  });

  it('a wait given a signal that already aborted ends at once (an hour-long wait would time the test out)', async () => {
    await sleep(3_600_000, AbortSignal.abort());
  });
});
