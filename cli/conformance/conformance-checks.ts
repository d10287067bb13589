/**
 * The conformance checks as data: each is a name and a sequence of requests with what the
 * answer must show. Built from the options, so a live target gets its given session ids
 * and a Prism mock gets `Prefer` headers that select the answer a stateful target would give.
 */
import { randomUUID } from 'node:crypto';
import type { ConformanceOptions } from './conformance-options.js';

/** One request to `POST /v1/sessions/{sessionId}/resume`. */
export interface CheckRequest {
  /** The raw session id; the runner percent-encodes it as one path segment. */
  sessionId: string;
  /** The whole Authorization header value, or null to send none. */
  authorization: string | null;
  /** Content-Type to send, if any. */
  contentType?: string;
  /** Body text to send, if any. */
  body?: string;
  /** `Prefer` header, sent in mock mode only. */
  prefer?: string;
  /** `Origin` header, as a browser page on that origin sends it. */
  origin?: string;
}

/** What an answer must show, beyond matching the spec (always checked). */
export interface Expectation {
  /** Required status. */
  status?: number;
  /** Statuses the answer must not have. */
  notStatus?: number[];
  /** Text the raw body must contain (e.g. the `not_paused` marker). */
  bodyContains?: string;
  /** Members the JSON body must have with these values. */
  bodyHas?: Record<string, unknown>;
  /** Headers that must be present, matched by these patterns. */
  headers?: Record<string, RegExp>;
  /** Index of an earlier step whose status, body and WWW-Authenticate this answer must repeat. */
  sameAsStep?: number;
  /** Rate-limit fields, when sent, are whole and readable; with `belowStep`, counted since that step. */
  rateLimit?: { belowStep?: number };
  /** CORS headers, when sent, allow this origin and expose the headers a client reads. */
  corsOrigin?: string;
}

/** One step: a request and its expectation. */
export interface CheckStep {
  request: CheckRequest;
  expect: Expectation;
  /** Added to the failure detail when the failing answer's body contains `when`: what to do about it. */
  hint?: { when: string; say: string };
}

/** A named check; `skip` says why it cannot run against this target. */
export interface ConformanceCheck {
  name: string;
  steps: CheckStep[];
  skip?: string;
}

/** Session ids the Prism mock's examples talk about. */
const MOCK_PAUSED = 'sess_paused_1';
const MOCK_NOT_PAUSED = 'sess_running_1';

const NOT_PAUSED = 'not_paused';
/** Longest session id the spec allows (x-decisions: session-id-format). */
const MAX_SESSION_ID = 256;
const BROWSER_ORIGIN = 'https://conformance.example';
const ALREADY_RESUMED =
  'the paused session is not paused: an earlier run may have resumed it. Against the sandbox pass --reset; against npm start restart it (the memory store starts from the demo set) or give another --paused-session';
const CHALLENGE = { 'www-authenticate': /^Bearer\b/i };

/** What every group of checks builds its requests from. */
interface CheckContext {
  options: ConformanceOptions;
  mock: boolean;
  /** The Authorization value with the given key. */
  bearer: string;
  /** A fresh unknown session id. */
  unknown: () => string;
}

/** Builds the checks for a target. Unknown ids are random, so a live service never resumes one by chance. */
export function createConformanceChecks(options: ConformanceOptions): ConformanceCheck[] {
  const context: CheckContext = {
    options,
    mock: options.mode === 'mock',
    bearer: `Bearer ${options.apiKey}`,
    unknown: () => `conformance-unknown-${randomUUID()}`,
  };
  return [
    ...authChecks(context),
    {
      // Source spec §4 rule 2, §7.
      name: 'unknown session id → 404',
      steps: on404(context, { authorization: context.bearer }),
    },
    ...stateChecks(context),
    ...requestShapeChecks(context),
    ...boundsChecks(context.bearer, context.mock),
    ...headerChecks(context.bearer, context.mock, context.unknown),
  ];
}

/** One request to an unknown id that must get 404 (and never 401). */
function on404({ unknown }: CheckContext, request: Omit<CheckRequest, 'sessionId' | 'prefer'> & { sessionId?: string }): CheckStep[] {
  return [{ request: { sessionId: unknown(), prefer: 'code=404', ...request }, expect: { status: 404, notStatus: [401] } }];
}

/** A missing or wrong token gets 401, and the same 401 for an unknown and an existing session. */
function authChecks({ options, mock, unknown }: CheckContext): ConformanceCheck[] {
  // x-decisions: unauthorized; authentication runs before the lookup (source spec §5).
  // An existing session to compare 401 answers with: the not-paused one cannot be resumed
  // even by a broken auth check.
  const existing = mock ? MOCK_NOT_PAUSED : (options.notPausedSession ?? options.pausedSession);
  const wrongToken = `Bearer conformance-wrong-key-${randomUUID()}`;
  const noLeak = (authorization: string | null, prefer: string): CheckStep[] => {
    const first: CheckStep = {
      request: { sessionId: unknown(), authorization, prefer },
      expect: { status: 401, headers: CHALLENGE, bodyHas: { success: false } },
    };
    if (!existing) return [first];
    return [first, { request: { sessionId: existing, authorization, prefer }, expect: { status: 401, sameAsStep: 0 } }];
  };
  return [
    { name: 'no token → 401, same answer for an unknown and an existing session', steps: noLeak(null, 'code=401, example=missingToken') },
    { name: 'wrong token → 401, same answer for an unknown and an existing session', steps: noLeak(wrongToken, 'code=401, example=invalidToken') },
  ];
}

/** A paused session resumes once and is then not paused; a session that is not paused says so. */
function stateChecks({ options, mock, bearer }: CheckContext): ConformanceCheck[] {
  // Source spec §4 rules 1 and 3: resume once, then the same session is not paused.
  const paused = mock ? MOCK_PAUSED : options.pausedSession;
  return [
    {
      name: 'paused session → 200 success, then not_paused on a second call',
      skip: paused ? undefined : 'needs --paused-session <id>',
      steps: [
        {
          request: { sessionId: paused ?? '', authorization: bearer, prefer: 'code=200, example=resumed' },
          expect: { status: 200, bodyHas: { success: true } },
          hint: { when: NOT_PAUSED, say: ALREADY_RESUMED },
        },
        {
          request: { sessionId: paused ?? '', authorization: bearer, prefer: 'code=409, example=notPaused' },
          expect: { notStatus: [200], bodyContains: NOT_PAUSED },
        },
      ],
    },
    {
      name: 'session that is not paused → not_paused marker',
      skip: mock || options.notPausedSession ? undefined : 'needs --not-paused-session <id>',
      steps: [
        {
          request: {
            sessionId: mock ? MOCK_NOT_PAUSED : (options.notPausedSession ?? ''),
            authorization: bearer,
            prefer: 'code=409, example=notPaused',
          },
          expect: { notStatus: [200], bodyContains: NOT_PAUSED },
        },
      ],
    },
  ];
}

/**
 * Request shapes real clients send (x-decisions: request-body, unauthorized); each goes to an
 * unknown id, so a 404 proves it passed the body parser and the bearer check.
 */
function requestShapeChecks(context: CheckContext): ConformanceCheck[] {
  const { options, mock, bearer } = context;
  return [
    {
      name: 'no body with Content-Type: application/json is accepted',
      steps: on404(context, { authorization: bearer, contentType: 'application/json' }),
    },
    {
      name: 'an empty JSON object body is accepted',
      steps: on404(context, { authorization: bearer, contentType: 'application/json', body: '{}' }),
    },
    {
      name: 'lowercase `bearer` scheme is accepted (RFC 7235 §2.1)',
      skip: mock ? 'Prism 5.14.2 matches the Bearer scheme case-sensitively' : undefined,
      steps: on404(context, { authorization: `bearer ${options.apiKey}` }),
    },
    {
      name: 'an id that needs URL encoding reaches the route',
      steps: on404(context, { authorization: bearer, sessionId: `conformance unknown/${randomUUID()}?#%ü` }),
    },
  ];
}

/**
 * x-decisions: session-id-format: ids outside the bounds get 400, but only after the key check.
 * Prism refuses a request that breaks the spec with its own violation answer, 422 since the
 * operation declares a 422 (whatever `Prefer` asks): the mock enforces the same bounds, and the
 * row's name says which answer it checked.
 */
function boundsChecks(bearer: string, mock: boolean): ConformanceCheck[] {
  const refused = (sessionId: string): CheckStep[] => [
    {
      request: { sessionId, authorization: null, prefer: 'code=401, example=missingToken' },
      expect: { status: 401, headers: CHALLENGE },
    },
    { request: { sessionId, authorization: bearer, prefer: 'code=400' }, expect: { status: mock ? 422 : 400 } },
  ];
  const long = `conformance-${randomUUID()}-`.padEnd(MAX_SESSION_ID + 1, 'x');
  const expected = mock ? "401 without a key, then 422 with it (Prism's answer to an id outside the spec's bounds)" : '400, after the key check (401 first)';
  return [
    { name: `session id over ${MAX_SESSION_ID} characters → ${expected}`, steps: refused(long) },
    { name: `session id with a control character → ${expected}`, steps: refused(`conformance\n${randomUUID()}`) },
  ];
}

/** x-decisions: rate-limit-headers, cors-headers: optional for a target, whole and consistent when sent. */
function headerChecks(bearer: string, mock: boolean, unknown: () => string): ConformanceCheck[] {
  const step = (expect: Expectation, extra: Partial<CheckRequest> = {}): CheckStep => ({
    request: { sessionId: unknown(), authorization: bearer, prefer: 'code=404', ...extra },
    expect: { status: 404, ...expect },
  });
  return [
    {
      // A mock answers its example every time, so only a live target is expected to count down.
      name: 'rate-limit fields, when sent, are readable and count each request',
      steps: [step({ rateLimit: {} }), step({ rateLimit: mock ? {} : { belowStep: 0 } })],
    },
    {
      name: 'CORS headers, when sent, allow the page origin and expose the headers a client reads',
      steps: [
        step({ corsOrigin: BROWSER_ORIGIN }, { origin: BROWSER_ORIGIN }),
        {
          request: { sessionId: unknown(), authorization: null, prefer: 'code=401, example=missingToken', origin: BROWSER_ORIGIN },
          expect: { status: 401, corsOrigin: BROWSER_ORIGIN },
        },
      ],
    },
  ];
}
