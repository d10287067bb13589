/**
 * The witnesses of `client grade`: clients written with other libraries, each with the verdict
 * per rule that library's documented behaviour earns, written from its documentation and source
 * before the grader ran, and the reason. client-grade-witness.test.ts runs each one through
 * `client grade --run` as a user would and compares; docs/client.md shows the table
 * (`renderWitnessTable`), checked against it by the same test.
 */
import { CLIENT_RULES, type ClientRuleId } from '../../../cli/client-grade/client-rules.js';

/** A verdict of `client grade --json`. */
export type Grade = 'pass' | 'fail' | 'n/o';

/** One client under test. */
export interface ClientWitness {
  /** Library and variant, as the docs' table heads it. */
  name: string;
  /** The `--run` command, from the repository root. */
  run: string;
  /** The verdict each rule earns, by the library's documented behaviour. */
  expected: Record<ClientRuleId, Grade>;
}

const CLIENTS = 'test/e2e/witness/clients';

/**
 * What every witness here does alike: a POST with `Authorization: Bearer`, no body, and a
 * Retry-After within the cap honoured (each library documents it; see below), 400, 401, 404,
 * 422 and 409 not retried (none of them is in any library's retry list below).
 */
const COMMON = { request: 'pass', 'retry-503': 'pass', 'retry-429': 'pass', 'no-retry-4xx': 'pass', 'not-paused': 'pass' } as const;

export const CLIENT_WITNESSES: readonly ClientWitness[] = [
  {
    // urllib3 2.7 util/retry.py: Retry(total=2, backoff_factor=0.25, status_forcelist=[429, 500,
    // 502, 503, 504], allowed_methods=None, respect_retry_after_header=True). is_retry(): a status
    // in status_forcelist is retried for any method when allowed_methods is None; increment():
    // ProtocolError (connection reset) is a read error, retried for such a method, and so is
    // ReadTimeoutError (timeout=10 s); sleep(): Retry-After first, capped only by
    // retry_after_max (6 h), so the 11 s Retry-After is waited and retried; get_backoff_time():
    // 0 before the first retry ("consecutive_errors_len <= 1: return 0"), then
    // backoff_factor × 2^(n−1) = 0.5 s, plus random() × backoff_jitter, 0 by default: no spread.
    // Without a key it retries the 500, the reset, the lost answer and the timed-out attempt.
    name: 'urllib3 2.7 Retry, no key',
    run: `python3 ${CLIENTS}/urllib3-retry.py`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'fail',
      'retry-500': 'fail',
      'idempotency-key': 'pass',
      'answer-lost': 'fail',
      backoff: 'fail',
      timeout: 'fail',
    },
  },
  {
    // The same Retry, with a new Idempotency-Key header per call (urllib3 resends the request's
    // headers on every retry): the retries of the 500, the reset and the timeout are now safe.
    name: 'urllib3 2.7 Retry, with a key',
    run: `python3 ${CLIENTS}/urllib3-retry.py keyed`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'pass',
      'retry-500': 'pass',
      'idempotency-key': 'pass',
      'answer-lost': 'pass',
      backoff: 'fail',
      timeout: 'pass',
    },
  },
  {
    // curl 7.88 man page, --retry <num>: "Transient error means either: a timeout, an FTP 4xx
    // response code or an HTTP 408, 429, 500, 502, 503 or 504 response code"; "it will first wait
    // one second and then for all forthcoming retries it will double the waiting time"; "Since
    // curl 7.66.0, curl will comply with the Retry-After: response header". A reset connection is
    // no transient error (only --retry-all-errors retries it). So: the 500 and the timed-out
    // attempt (--max-time 10) are retried without a key; the reset and the lost answer are not;
    // the 11 s Retry-After is waited and retried; the back-off waits 1 s then 2 s, beyond the
    // bounds (250 ms, 500 ms).
    name: 'curl 7.88 --retry 2, no key',
    run: `sh ${CLIENTS}/curl-retry.sh`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'pass',
      'retry-500': 'fail',
      'idempotency-key': 'pass',
      'answer-lost': 'pass',
      backoff: 'fail',
      timeout: 'fail',
    },
  },
  {
    // curl --retry 2 --retry-all-errors with -H Idempotency-Key (a new one per call): "Retry on
    // any error"; an HTTP error status is an error only with --fail ("Fail fast … on server
    // errors … return error 22"), which this client does not give, so the 4xx are still not
    // retried; the reset and the lost answer now are, with the key.
    name: 'curl 7.88 --retry 2 --retry-all-errors, with a key',
    run: `sh ${CLIENTS}/curl-retry.sh keyed`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'pass',
      'retry-500': 'pass',
      'idempotency-key': 'pass',
      'answer-lost': 'pass',
      backoff: 'fail',
      timeout: 'pass',
    },
  },
  {
    // undici 7 RetryAgent (lib/handler/retry-handler.js) with maxRetries 2, methods ['POST']
    // (POST is not in the default methods), statusCodes [429, 500, 502, 503, 504], minTimeout
    // 250, timeoutFactor 2, maxTimeout 10 s; errorCodes default to ECONNRESET, UND_ERR_SOCKET…,
    // so a reset is retried; the default retry waits min(Retry-After, maxTimeout), so the 11 s
    // Retry-After is waited 10 s and retried, else min(minTimeout × factor^(counter−1),
    // maxTimeout): 250 ms then 500 ms on every call, no spread; UND_ERR_HEADERS_TIMEOUT
    // (headersTimeout 10 s) is not in errorCodes: the hung attempt is reported.
    name: 'undici 7 RetryAgent, no key',
    run: `node ${CLIENTS}/undici-retry-agent.mjs`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'fail',
      'retry-500': 'fail',
      'idempotency-key': 'pass',
      'answer-lost': 'fail',
      backoff: 'fail',
      timeout: 'pass',
    },
  },
  {
    // The same RetryAgent with an idempotency-key header per call (kept in the dispatch options
    // it retries with).
    name: 'undici 7 RetryAgent, with a key',
    run: `node ${CLIENTS}/undici-retry-agent.mjs keyed`,
    expected: {
      ...COMMON,
      'retry-after-cap': 'fail',
      'retry-network': 'pass',
      'retry-500': 'pass',
      'idempotency-key': 'pass',
      'answer-lost': 'pass',
      backoff: 'fail',
      timeout: 'pass',
    },
  },
];

/** The docs' table: one row per rule, one column per witness, each cell the verdict expected and graded (the test fails when they differ). */
export function renderWitnessTable(witnesses: readonly ClientWitness[] = CLIENT_WITNESSES): string {
  const head = `| rule | ${witnesses.map((w) => w.name).join(' | ')} |`;
  const rule = `|---|${witnesses.map(() => '---|').join('')}`;
  const rows = CLIENT_RULES.map(({ id }) => `| \`${id}\` | ${witnesses.map((w) => (w.expected[id] === 'fail' ? 'FAIL' : w.expected[id])).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}
