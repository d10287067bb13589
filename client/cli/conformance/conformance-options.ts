/** Options of the conformance suite, and the parser of its command line (`npm run conformance`). */
import { parseArgs } from 'node:util';

/** `live`: a stateful target (a real service or the reference server); `mock`: Prism, driven by `Prefer`. */
export type ConformanceMode = 'live' | 'mock';

/** What to check and where. */
export interface ConformanceOptions {
  /** Base URL of the target, without the /v1 prefix (e.g. http://127.0.0.1:4010). */
  baseUrl: string;
  /** A valid API key of the target, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** `live` (default) or `mock` (Prism: each request carries a `Prefer` header). */
  mode?: ConformanceMode;
  /** A paused session the suite may resume (live mode); without it the resume check is skipped. */
  pausedSession?: string;
  /** A session that exists and is not paused (live mode); without it that check is skipped. */
  notPausedSession?: string;
  /** A webhook URL to check against the URL policy (x-decisions: webhook-url-policy). */
  webhookUrl?: string;
  /** Per-request timeout in milliseconds (default 10000). */
  timeoutMs?: number;
}

/** Text of `--help`. */
export const CONFORMANCE_HELP = `Usage: npm run conformance -- --base-url <url> --api-key <key> [options]

Runs the contract checks of spec/openapi.yaml against a Session Resume API target and
prints a pass/fail table. Every answer's status, headers and body are validated against
the spec.

Options:
  --base-url <url>             target base URL, without /v1 (required)
  --api-key <key>              a valid API key of the target (required)
  --mode <live|mock>           live (default): a stateful service; mock: a Prism mock of
                               the spec, driven by Prefer headers
  --paused-session <id>        a paused session the suite may resume (live mode)
  --not-paused-session <id>    an existing session that is not paused (live mode)
  --webhook-url <url>          a webhook URL to check against the URL policy
  --timeout-ms <n>             per-request timeout (default 10000)
  -h, --help                   this text

Safe against a live service: the only session it resumes is the one given with
--paused-session (resumed exactly once). Every other request goes to a random unknown
id, carries no or a wrong token, or targets --not-paused-session, which cannot resume.

Exit status: 0 all checks passed (skipped ones included), 1 a check failed, 2 usage error.`;

/** Result of parsing argv: options, a request for help, or a usage error. */
export type ParsedConformanceArgs =
  | { kind: 'run'; options: ConformanceOptions }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

/** Parses the command line (without node and script), never throws. */
export function parseConformanceArgs(argv: readonly string[]): ParsedConformanceArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        mode: { type: 'string' },
        'paused-session': { type: 'string' },
        'not-paused-session': { type: 'string' },
        'webhook-url': { type: 'string' },
        'timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const problem = checkConformanceOptions({
    baseUrl: values['base-url'] ?? '',
    apiKey: values['api-key'] ?? '',
    mode: (values.mode ?? 'live') as ConformanceMode,
    pausedSession: values['paused-session'],
    notPausedSession: values['not-paused-session'],
    webhookUrl: values['webhook-url'],
    timeoutMs: values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']),
  });
  return typeof problem === 'string' ? { kind: 'usage-error', message: problem } : { kind: 'run', options: problem };
}

/** Checks options; returns them without undefined members, or a sentence saying what to fix. */
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
  if (options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) {
    return '--timeout-ms must be a positive integer';
  }
  if (options.pausedSession !== undefined && options.pausedSession === options.notPausedSession) {
    return '--paused-session and --not-paused-session must differ';
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as unknown as ConformanceOptions;
}
