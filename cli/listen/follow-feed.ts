/**
 * Follows the sandbox world's event feed (SSE), reconnecting with `Last-Event-ID` so events emitted
 * meanwhile are replayed first. The delivery profile arrives on the same stream, first and on change.
 */
import { cappedDelayMs } from '@session-resume-api/runtime/backoff';
import { readDeliveryProfile, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import type { SandboxEvent } from 'session-resume-api/sandbox';
import { UsageError } from '../program.js';
import { createSseParser } from './sse-lines.js';

/** Options of `followEventFeed`. */
export interface FollowFeedOptions {
  /** e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The world whose events are followed. */
  apiKey: string;
  /** Ends the feed (Ctrl-C). */
  signal: AbortSignal;
  onEvent(entry: SandboxEvent): void;
  /**
   * The world's delivery profile, on connecting and on each change.
   * @defaultValue none
   */
  onProfile?(profile: DeliveryProfile): void;
  /**
   * Connection news for people.
   * @defaultValue none
   */
  onStatus?(line: string): void;
  /**
   * Wait before reconnecting, in ms, until the server sends `retry:`.
   * @defaultValue 1000
   */
  reconnectDelayMs?: number;
  /**
   * The fetch to use.
   * @defaultValue globalThis.fetch
   */
  fetch?: typeof fetch;
}

const MAX_RECONNECT_DELAY_MS = 30_000;

function isFeedEntry(value: unknown): value is SandboxEvent {
  const entry = value as Partial<SandboxEvent> | null;
  return typeof entry?.webhookId === 'string' && typeof entry.payload === 'object' && entry.payload !== null && typeof entry.sequence === 'number';
}

/**
 * Resolves when `signal` aborts; rejects with `UsageError` on 401 or 404 (not in sandbox mode).
 * Network drops reconnect, the wait doubling up to 30 s.
 */
export async function followEventFeed(options: FollowFeedOptions): Promise<void> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/_sandbox/events`;
  const backoff = { baseMs: options.reconnectDelayMs ?? 1000, factor: 2, maxMs: MAX_RECONNECT_DELAY_MS };
  let serverRetry: number | undefined;
  let lastEventId: string | undefined;
  let failures = 0;
  while (!options.signal.aborted) {
    const parser = createSseParser(
      (message) => {
        if (message.event === 'delivery-profile') return readProfile(message.data, options);
        if (message.event !== 'session-event') return;
        lastEventId = message.lastEventId;
        try {
          const entry: unknown = JSON.parse(message.data);
          if (isFeedEntry(entry)) options.onEvent(entry);
          else options.onStatus?.(`skipped a feed message that is not a session event: ${message.data.slice(0, 200)}`);
        } catch {
          options.onStatus?.(`skipped a feed message that is not JSON: ${message.data.slice(0, 200)}`);
        }
      },
      (ms) => (serverRetry = ms),
    );
    try {
      const response = await fetchFn(url, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${options.apiKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: options.signal,
      });
      if (response.status === 401) throw new UsageError(`${options.baseUrl} refused the key (401): give a key that starts with sandbox_ (--api-key).`);
      if (response.status === 404) {
        throw new UsageError(`${options.baseUrl} has no sandbox event feed (404): start the server in sandbox mode (npm run sandbox) or check --base-url.`);
      }
      if (!response.ok || !response.body) throw new Error(`the feed answered ${response.status}`);
      options.onStatus?.(failures > 0 ? `reconnected to ${url}${lastEventId ? ` (after event ${lastEventId})` : ''}` : `connected to ${url}`);
      failures = 0;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (let read = await reader.read(); !read.done; read = await reader.read()) parser.push(decoder.decode(read.value, { stream: true }));
      throw new Error('the server closed the feed');
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof UsageError) throw error;
      failures++;
      const wait = Math.min(serverRetry ?? cappedDelayMs(failures, backoff), MAX_RECONNECT_DELAY_MS);
      options.onStatus?.(`lost the feed (${reasonOf(error)}); reconnecting in ${wait} ms`);
      await sleep(wait, options.signal);
    }
  }
}

/** A `delivery-profile` message: handed on when it is a profile, reported otherwise. */
function readProfile(data: string, options: FollowFeedOptions): void {
  let reading;
  try {
    reading = readDeliveryProfile(JSON.parse(data));
  } catch {
    reading = { ok: false as const, message: 'not JSON' };
  }
  if (reading.ok) options.onProfile?.(reading.profile);
  else options.onStatus?.(`skipped a delivery profile this forwarder cannot read (${reading.message})`);
}

/** fetch's "fetch failed" says little: its cause names the socket error. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : cause instanceof Error ? cause.message : (error as Error).message;
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
