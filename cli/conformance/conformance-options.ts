import { isIntegerIn } from '@session-resume-api/runtime/options-error';

/** `live`: a stateful target (a real service or the reference server); `mock`: Prism, driven by `Prefer`. */
export type ConformanceMode = 'live' | 'mock';

/** Options of `session-resume-api conformance`. */
export interface ConformanceOptions {
  /** Base URL of the target, without the /v1 prefix (e.g. http://127.0.0.1:4010). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * `mock`: Prism, each request carrying a `Prefer` header.
   * @defaultValue `'live'`
   */
  mode?: ConformanceMode;
  /**
   * A paused session the suite may resume (live mode).
   * @defaultValue none: the resume check is skipped
   */
  pausedSession?: string;
  /**
   * A session that exists and is not paused (live mode).
   * @defaultValue none: that check is skipped
   */
  notPausedSession?: string;
  /**
   * First put the key's sandbox world back to its seed set (`POST /_sandbox/reset`), so the suite can run again.
   * @defaultValue `false`
   */
  reset?: boolean;
  /**
   * Checked against the URL policy (x-decisions: webhook-url-policy).
   * @defaultValue none: that check is skipped
   */
  webhookUrl?: string;
  /**
   * Per-request timeout in ms.
   * @defaultValue 10000
   */
  timeoutMs?: number;
}

/** The options without undefined members, or a sentence saying what to fix. */
export function checkConformanceOptions(options: ConformanceOptions): ConformanceOptions | string {
  if (!options.baseUrl) return '--base-url is required';
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    return `--base-url is not a URL: ${options.baseUrl}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--base-url must be http(s): ${options.baseUrl}`;
  if (!options.apiKey) return '--api-key is required';
  if (options.mode !== undefined && options.mode !== 'live' && options.mode !== 'mock') {
    return `--mode must be live or mock, got ${String(options.mode)}`;
  }
  if (options.timeoutMs !== undefined && !isIntegerIn(options.timeoutMs, { min: 1 })) {
    return '--timeout-ms must be a positive integer';
  }
  if (options.reset && options.mode === 'mock') return '--reset resets a sandbox world; the mock has no state to reset';
  if (options.pausedSession !== undefined && options.pausedSession === options.notPausedSession) {
    return '--paused-session and --not-paused-session must differ';
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as unknown as ConformanceOptions;
}
