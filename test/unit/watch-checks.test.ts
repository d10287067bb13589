/**
 * `watch`'s check functions one by one, on exchanges built here: each finding names its rule and
 * says exactly what is at fault (the report prints it), and a kept rule yields a finding without
 * a fault (it counts as checked).
 */
import { contract } from '@session-resume-api/runtime/contract';
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkApiExchange, checkOutcome, isPreflight, parseJson, refusals, toHeaders } from '../../cli/watch/api-checks.js';
import { createContractView, type Operation } from '../../cli/watch/contract-view.js';
import { headerList, type Exchange } from '../../cli/watch/exchange.js';
import { createRecentMap } from '../../cli/watch/recent-map.js';
import { checkReplay, type RecordedAnswer } from '../../cli/watch/replay-check.js';
import { checkDelivery, EARLY_SLACK_MS, identityOf, type LastAttempt, type WebhookCheckContext } from '../../cli/watch/webhook-checks.js';
import { WATCH_RULES } from '../../cli/watch/watch-rules.js';

const view = createContractView(contract);
const T0 = Date.parse('2026-11-28T01:00:00.000Z');
const RESUMED = '{"success":true,"message":"Session resumed."}';
const NOT_PAUSED = '{"success":false,"error":"not_paused","message":"Session is not paused (not_paused)."}';
const AUTH = 'Bearer sk_test_secret_key';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0123456789ab';

type Answered = Exchange & { status: number };
function api(
  status: number,
  body: string | undefined,
  over: { method?: string; target?: string; request?: [string, string][]; response?: [string, string][]; requestBody?: string; at?: number } = {},
): Answered {
  const at = over.at ?? T0;
  return {
    kind: 'api',
    method: over.method ?? 'POST',
    target: over.target ?? '/v1/sessions/sess_1/resume',
    startedAt: at,
    endedAt: at + 5,
    requestHeaders: headerList(over.request ?? [['authorization', AUTH]]),
    requestBody: over.requestBody ?? '',
    status,
    responseHeaders: headerList(over.response ?? [['content-type', 'application/json']]),
    responseBody: body,
  };
}
const match = (target = '/v1/sessions/sess_1/resume') => view.matchPath(target)!;
const resumeOp = () => match().operations.get('POST') as Operation;
const faults = (exchange: Answered) => checkApiExchange(exchange, match(exchange.target), { view }).filter((f) => f.fault !== undefined);
const rules = (exchange: Answered) => checkApiExchange(exchange, match(exchange.target), { view }).map((f) => f.rule);

describe('api checks', () => {
  it('a clean resume: the rules it reaches, none at fault', () => {
    expect(rules(api(200, RESUMED))).toEqual(['request-shape', 'response-shape', 'outcome']);
    expect(faults(api(200, RESUMED))).toEqual([]);
    expect(rules(api(404, '{"success":false,"error":"not_found","message":"x"}'))).toEqual(['request-shape', 'response-shape', 'outcome', 'error-shape']);
    expect(rules(api(409, NOT_PAUSED))).toEqual(['request-shape', 'response-shape', 'not-paused']);
    expect(faults(api(409, NOT_PAUSED))).toEqual([]);
  });

  it('an undeclared status is response-shape’s alone, whatever its body', () => {
    expect(rules(api(418, '{"success":false}'))).toEqual(['request-shape', 'response-shape']);
    expect(rules(api(418, NOT_PAUSED))).toEqual(['request-shape', 'response-shape', 'not-paused']);
  });

  it('the rate-limit fields and Retry-After are left to their own rules by response-shape', () => {
    const found = checkApiExchange(
      api(200, RESUMED, {
        response: [
          ['content-type', 'application/json'],
          ['ratelimit', '!'],
          ['ratelimit-policy', '!'],
        ],
      }),
      match(),
      { view },
    );
    expect(found.filter((f) => f.fault !== undefined).map((f) => f.rule)).toEqual(['rate-limit-headers']);
  });

  it('faults of one rule are joined with "; "', () => {
    expect(faults(api(200, '{"success":true}', { response: [['content-type', 'text/plain']] }))).toEqual([
      {
        rule: 'response-shape',
        fault: 'content-type "text/plain", not application/json; body does not match ResumeResult: (root) must have required property \'message\'',
      },
    ]);
    expect(faults(api(200, RESUMED, { request: [['idempotency-key', '']] }))[0]?.fault).toMatch(
      /^answered 200 to a request the contract refuses: no Bearer Authorization; Idempotency-Key does not match/,
    );
    expect(faults(api(200, 'x not_paused')).find((f) => f.rule === 'not-paused')?.fault).toBe('status 200, not 409; body error is undefined, not "not_paused"');
    const op = resumeOp();
    expect(checkOutcome(api(200, '{"success":false,"kind":"e"}'), op, { success: false, kind: 'e' })?.fault).toMatch(
      /^status 200 with success false, kind "e": an error answer/,
    );
  });

  it('isPreflight: OPTIONS with Access-Control-Request-Method only', () => {
    expect(isPreflight(api(204, '', { method: 'OPTIONS', request: [['access-control-request-method', 'POST']] }))).toBe(true);
    expect(isPreflight(api(204, '', { method: 'OPTIONS' }))).toBe(false);
    expect(isPreflight(api(204, '', { method: 'POST', request: [['access-control-request-method', 'POST']] }))).toBe(false);
  });

  it('refusals: each thing the contract refuses, said once', () => {
    const ex = (request: [string, string][], over = {}) => api(200, RESUMED, { request, ...over });
    expect(refusals(ex([['authorization', AUTH]]), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(ex([]), match(), resumeOp(), view)).toEqual(['no Bearer Authorization']);
    expect(refusals(ex([['authorization', 'Basic abc']]), match(), resumeOp(), view)).toEqual(['no Bearer Authorization']);
    expect(refusals(ex([['authorization', 'bearer x']]), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(ex([['authorization', 'Bearer ']]), match(), resumeOp(), view)).toEqual(['no Bearer Authorization']);
    expect(refusals(ex([['authorization', 'xBearer a']]), match(), resumeOp(), view)).toEqual(['no Bearer Authorization']);
    expect(refusals(ex([['authorization', 'Bearer a b']]), match(), resumeOp(), view)).toEqual(['no Bearer Authorization']);
    expect(
      refusals(
        ex([
          ['authorization', AUTH],
          ['authorization', AUTH],
        ]),
        match(),
        resumeOp(),
        view,
      ),
    ).toEqual(['Authorization sent twice']);
    expect(
      refusals(
        ex([
          ['authorization', AUTH],
          ['idempotency-key', ''],
        ]),
        match(),
        resumeOp(),
        view,
      ),
    ).toEqual(['Idempotency-Key does not match its schema (data must NOT have fewer than 1 characters; data must match pattern "^[ -~]+$")']);
    expect(
      refusals(
        ex([
          ['authorization', AUTH],
          ['idempotency-key', 'a'],
          ['idempotency-key', 'b'],
        ]),
        match(),
        resumeOp(),
        view,
      ),
    ).toEqual(['Idempotency-Key sent 2 times']);
    expect(
      refusals(ex([['authorization', AUTH]], { target: '/v1/sessions/%E0%A4%A/resume' }), match('/v1/sessions/%E0%A4%A/resume'), resumeOp(), view),
    ).toEqual(['session_id is not percent-encoded correctly']);
    expect(refusals(ex([['authorization', AUTH]]), match(), undefined, view)).toEqual(['POST is not an operation of /v1/sessions/{session_id}/resume']);
  });

  it('refusals: a body must be a JSON object sent as application/json', () => {
    const body = (text: string, type?: string) =>
      api(200, RESUMED, {
        requestBody: text,
        request: [['authorization', AUTH], ...(type === undefined ? [] : ([['content-type', type]] as [string, string][]))],
      });
    expect(refusals(body('{}', 'application/json'), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(body('{}', 'Application/JSON; charset=utf-8'), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(body('{}', 'application/jsonx'), match(), resumeOp(), view)).toEqual(['a body with content-type "application/jsonx"']);
    expect(refusals(body('{}'), match(), resumeOp(), view)).toEqual(['a body with content-type ""']);
    expect(refusals(body('{', 'application/json'), match(), resumeOp(), view)).toEqual(['a body that is not JSON']);
    expect(refusals(body('[1]', 'application/json'), match(), resumeOp(), view)[0]).toMatch(/^body does not match/);
    expect(refusals(body('', 'text/plain'), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(body(''), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(body('{}', 'application/json ; charset=utf-8'), match(), resumeOp(), view)).toEqual([]);
    expect(refusals(body('{}', 'x-application/json'), match(), resumeOp(), view)).toEqual(['a body with content-type "x-application/json"']);
    expect(refusals(body('{}', 'application/json x'), match(), resumeOp(), view)).toEqual(['a body with content-type "application/json x"']);
  });

  it('request-shape: only a 2xx to a refused request drifts', () => {
    const bare = (status: number) => api(status, status === 200 ? RESUMED : '{"success":false,"error":"unauthorized","message":"x"}', { request: [] });
    expect(faults(bare(200))).toEqual([{ rule: 'request-shape', fault: 'answered 200 to a request the contract refuses: no Bearer Authorization' }]);
    expect(faults(bare(401)).map((f) => f.rule)).not.toContain('request-shape');
    expect(faults({ ...bare(299) }).map((f) => f.rule)).toContain('request-shape');
    expect(faults(api(300, '', { request: [] })).map((f) => f.rule)).not.toContain('request-shape');
    expect(faults(api(199, '', { request: [] })).map((f) => f.rule)).not.toContain('request-shape');
  });

  it('response-shape: an undeclared status, a missing or malformed header, a 2xx body', () => {
    expect(faults(api(418, '{}'))).toContainEqual({ rule: 'response-shape', fault: 'status 418 is not declared' });
    expect(
      faults(
        api(200, RESUMED, {
          response: [
            ['content-type', 'application/json'],
            ['idempotent-replayed', 'yes'],
          ],
        }),
      ),
    ).toEqual([
      { rule: 'response-shape', fault: 'header idempotent-replayed "yes" does not match its schema (data must be equal to one of the allowed values)' },
    ]);
    expect(faults(api(200, '{"success":true}'))).toEqual([
      { rule: 'response-shape', fault: "body does not match ResumeResult: (root) must have required property 'message'" },
    ]);
    expect(faults(api(200, RESUMED, { response: [['content-type', 'text/plain']] }))).toEqual([
      { rule: 'response-shape', fault: 'content-type "text/plain", not application/json' },
    ]);
    expect(faults(api(200, RESUMED, { response: [['content-type', 'x-application/json']] }))).toEqual([
      { rule: 'response-shape', fault: 'content-type "x-application/json", not application/json' },
    ]);
    expect(faults(api(200, RESUMED, { response: [['content-type', 'application/jsonx']] }))).toEqual([
      { rule: 'response-shape', fault: 'content-type "application/jsonx", not application/json' },
    ]);
    expect(faults(api(200, RESUMED, { response: [['content-type', 'application/json;charset=utf-8']] }))).toEqual([]);
    expect(faults(api(200, 'nope'))).toEqual([{ rule: 'response-shape', fault: 'body is not JSON: "nope"' }]);
    expect(faults(api(200, undefined))).toEqual([]);
    expect(faults(api(200, `x${'y'.repeat(100)}`))[0]?.fault).toBe(`body is not JSON: ${JSON.stringify(`x${'y'.repeat(59)}`)}`);
  });

  it('response-shape: a required header missing, a numeric header read as a number', () => {
    const rate = (value: string) =>
      faults(
        api(429, '{"success":false,"error":"rate_limited","message":"x"}', {
          response: [
            ['content-type', 'application/json'],
            ['retry-after', value],
          ],
        }),
      );
    expect(rate('30')).toEqual([]);
    expect(rate('-1').map((f) => f.rule)).toEqual(['retry-after']);
    expect(faults(api(429, '{"success":false,"error":"rate_limited","message":"x"}'))).toEqual([
      { rule: 'retry-after', fault: 'status 429 without Retry-After' },
    ]);
  });

  it('error-shape: an error answer that is not JSON in the Error shape', () => {
    expect(faults(api(404, 'Not Found', { response: [['content-type', 'text/plain']] }))).toEqual([
      { rule: 'error-shape', fault: 'content-type "text/plain", not application/json; body is not JSON: "Not Found"' },
    ]);
    expect(faults(api(404, '{"success":false,"message":"x"}'))).toEqual([
      { rule: 'error-shape', fault: "body does not match Error: (root) must have required property 'error'" },
    ]);
    expect(faults(api(404, '{"success":false,"error":"not_found","message":"x"}'))).toEqual([]);
  });

  it('outcome: the error shape on a status that does not declare it', () => {
    const op = resumeOp();
    expect(op.errorStatuses).toEqual(expect.arrayContaining(['400', '401', '404', '409', '422', '429', '500', '503']));
    expect(op.errorStatuses).not.toContain('200');
    expect(view.errorMarks).toEqual({ success: false });
    expect(checkOutcome(api(200, '{"success":false,"message":"m"}'), op, view.errorMarks)).toEqual({
      rule: 'outcome',
      fault: `status 200 with success false: an error answer, which the contract gives only with ${op.errorStatuses.join(', ')}`,
    });
    expect(checkOutcome(api(200, '{"success":true,"message":"m"}'), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, '{"message":"m"}'), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, 'false'), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, 'null'), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, undefined), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(404, '{"success":false}'), op, view.errorMarks)).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, '{"success":false,"message":"m"}'), op, {})).toEqual({ rule: 'outcome' });
    expect(checkOutcome(api(200, '{"success":false,"message":"m"}'), op, { success: false, error: 'x' })).toEqual({ rule: 'outcome' });
    // Answered by the marker's rule, not twice.
    expect(faults(api(200, '{"success":false,"error":"not_paused","message":"m"}')).map((f) => f.rule)).toEqual(['not-paused']);
  });

  it('not-paused: the marker with the declared status and error', () => {
    const np = (status: number, body: string) => faults(api(status, body)).filter((f) => f.rule === 'not-paused');
    expect(np(409, NOT_PAUSED)).toEqual([]);
    expect(np(200, NOT_PAUSED)).toEqual([{ rule: 'not-paused', fault: 'status 200, not 409' }]);
    expect(np(409, 'Session not_paused')).toEqual([{ rule: 'not-paused', fault: 'body error is undefined, not "not_paused"' }]);
    expect(np(409, '{"error":"not_paused_x","m":"not_paused"}')).toEqual([{ rule: 'not-paused', fault: 'body error is "not_paused_x", not "not_paused"' }]);
    expect(np(409, '{"success":false,"error":"not_paused"}')).toEqual([
      { rule: 'not-paused', fault: "body does not match Error: (root) must have required property 'message'" },
    ]);
    expect(np(409, 'null not_paused')).toEqual([{ rule: 'not-paused', fault: 'body error is undefined, not "not_paused"' }]);
    expect(RESUME_RETRY_POLICY.outcomes.notPaused.status).toBe(409);
  });

  it('retry-after: required where declared, readable wherever sent, only on its statuses', () => {
    const body503 = '{"success":false,"error":"service_unavailable","message":"x"}';
    const ra = (status: number, value?: string) =>
      faults(
        api(status, body503, {
          response: [['content-type', 'application/json'], ...(value === undefined ? [] : ([['retry-after', value]] as [string, string][]))],
        }),
      ).filter((f) => f.rule === 'retry-after');
    expect(ra(503)).toEqual([]);
    expect(ra(503, 'soon')).toEqual([{ rule: 'retry-after', fault: 'Retry-After "soon" is neither seconds nor an HTTP date' }]);
    expect(ra(503, 'Wed, 21 Oct 2015 07:28:00 GMT')).toEqual([]);
    expect(ra(500, 'soon')).toEqual([]);
    expect(
      checkApiExchange(
        api(503, body503, {
          response: [
            ['content-type', 'application/json'],
            ['retry-after', '1'],
          ],
        }),
        match(),
        { view },
      ).map((f) => f.rule),
    ).toContain('retry-after');
    expect(checkApiExchange(api(503, body503), match(), { view }).map((f) => f.rule)).not.toContain('retry-after');
  });

  it('rate-limit-headers: checked when either is sent', () => {
    const rl = (pairs: [string, string][]) =>
      checkApiExchange(api(200, RESUMED, { response: [['content-type', 'application/json'], ...pairs] }), match(), { view }).filter(
        (f) => f.rule === 'rate-limit-headers',
      );
    expect(rl([])).toEqual([]);
    expect(rl([['ratelimit', 'limit=10, remaining=9, reset=1']])).toEqual([
      { rule: 'rate-limit-headers', fault: 'RateLimit and RateLimit-Policy must be sent together' },
    ]);
    expect(rl([['ratelimit-policy', '10;w=60']])).toEqual([{ rule: 'rate-limit-headers', fault: 'RateLimit and RateLimit-Policy must be sent together' }]);
    expect(
      rl([
        ['ratelimit', '"default";r=9;t=1'],
        ['ratelimit-policy', '"default";q=10;w=60'],
      ]),
    ).toEqual([{ rule: 'rate-limit-headers' }]);
  });

  it('a method the path does not have is judged by the path’s declared answers', () => {
    expect(
      faults(
        api(405, '{"success":false,"error":"method_not_allowed","message":"x"}', {
          method: 'GET',
          response: [
            ['content-type', 'application/json'],
            ['allow', 'POST'],
          ],
        }),
      ),
    ).toEqual([]);
    expect(faults(api(405, '{"success":false,"error":"method_not_allowed","message":"x"}', { method: 'GET' }))).toEqual([
      { rule: 'response-shape', fault: 'header allow missing' },
    ]);
    expect(faults(api(200, RESUMED, { method: 'GET' }))).toEqual([
      { rule: 'request-shape', fault: 'answered 200 to a request the contract refuses: GET is not an operation of /v1/sessions/{session_id}/resume' },
    ]);
  });

  it('parseJson and toHeaders', () => {
    expect(parseJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJson('{')).toEqual({ ok: false });
    const headers = toHeaders(
      headerList([
        ['a', '1'],
        ['a', '2'],
        ['b', '3'],
      ]),
    );
    expect(headers.get('a')).toBe('1, 2');
    expect(headers.get('b')).toBe('3');
  });
});

describe('replay check', () => {
  const key = (k: string, extra: [string, string][] = []): [string, string][] => [['authorization', AUTH], ['idempotency-key', k], ...extra];
  const setup = () => createRecentMap<RecordedAnswer>(10);

  it('records a 200 and a not_paused answer; a later repeat must replay them', () => {
    const recorded = setup();
    expect(checkReplay(api(200, RESUMED, { request: key('k1') }), 'sess_1', recorded)).toBeUndefined();
    expect(
      checkReplay(
        api(200, '{ "message": "Session resumed.", "success": true }', { request: key('k1'), response: [['idempotent-replayed', 'true']], at: T0 + 100 }),
        'sess_1',
        recorded,
      ),
    ).toEqual({ rule: 'idempotent-replay' });
    expect(checkReplay(api(409, NOT_PAUSED, { request: key('k1'), at: T0 + 200 }), 'sess_1', recorded)).toEqual({
      rule: 'idempotent-replay',
      fault: 'repeated Idempotency-Key: status 409, the recorded answer (2026-11-28T01:00:00.005Z) was 200; Idempotent-Replayed is missing',
    });
    expect(
      checkReplay(
        api(200, '{"success":true,"message":"other"}', { request: key('k1'), response: [['idempotent-replayed', 'false']], at: T0 + 300 }),
        'sess_1',
        recorded,
      ),
    ).toEqual({
      rule: 'idempotent-replay',
      fault: 'repeated Idempotency-Key: body differs from the recorded answer (2026-11-28T01:00:00.005Z); Idempotent-Replayed is "false"',
    });
    const np = setup();
    checkReplay(api(409, NOT_PAUSED, { request: key('k2') }), 'sess_1', np);
    expect(checkReplay(api(409, NOT_PAUSED, { request: key('k2'), response: [['idempotent-replayed', 'true']], at: T0 + 10 }), 'sess_1', np)).toEqual({
      rule: 'idempotent-replay',
    });
  });

  it('another session with the key: 422 only', () => {
    const recorded = setup();
    checkReplay(api(200, RESUMED, { request: key('k3') }), 'sess_1', recorded);
    expect(checkReplay(api(422, '{}', { request: key('k3'), at: T0 + 10 }), 'sess_2', recorded)).toEqual({ rule: 'idempotent-replay' });
    expect(checkReplay(api(200, RESUMED, { request: key('k3'), at: T0 + 10 }), 'sess_2', recorded)).toEqual({
      rule: 'idempotent-replay',
      fault: 'Idempotency-Key used at 2026-11-28T01:00:00.005Z for another session answered 200, not 422',
    });
  });

  it('not graded: no key, a key sent twice, a status before the route, a repeat that started before the first ended, another API key', () => {
    const recorded = setup();
    expect(checkReplay(api(200, RESUMED), 'sess_1', recorded)).toBeUndefined();
    expect(
      checkReplay(
        api(200, RESUMED, {
          request: [
            ['authorization', AUTH],
            ['idempotency-key', 'a'],
            ['idempotency-key', 'a'],
          ],
        }),
        'sess_1',
        recorded,
      ),
    ).toBeUndefined();
    checkReplay(api(200, RESUMED, { request: key('k4') }), 'sess_1', recorded);
    expect(checkReplay(api(429, '{}', { request: key('k4'), at: T0 + 10 }), 'sess_1', recorded)).toBeUndefined();
    expect(checkReplay(api(503, '{}', { request: key('k4'), at: T0 + 10 }), 'sess_1', recorded)).toBeUndefined();
    const early = setup();
    checkReplay(api(200, RESUMED, { request: key('k8') }), 'sess_1', early);
    expect(checkReplay(api(404, '{}', { request: key('k8'), at: T0 + 4 }), 'sess_1', early)).toBeUndefined();
    expect(checkReplay(api(404, '{}', { request: key('k8'), at: T0 + 5 }), 'sess_1', early)?.fault).toMatch(/status 404/);
    expect(
      checkReplay(
        api(409, NOT_PAUSED, {
          request: [
            ['authorization', 'Bearer other'],
            ['idempotency-key', 'k4'],
          ],
          at: T0 + 10,
        }),
        'sess_1',
        recorded,
      ),
    ).toBeUndefined();
    for (const status of [404, 422])
      expect(checkReplay(api(status, '{}', { request: key('k4'), at: T0 + 10 }), 'sess_1', recorded)?.fault).toMatch(new RegExp(`status ${status}`));
  });

  it('only a 200 and the not_paused answer are recorded', () => {
    const recorded = setup();
    checkReplay(api(404, '{"error":"not_found"}', { request: key('k5') }), 'sess_1', recorded);
    checkReplay(api(409, '{"error":"idempotency_key_in_use"}', { request: key('k6') }), 'sess_1', recorded);
    expect(recorded.get(`${'x'}`)).toBeUndefined();
    expect(checkReplay(api(200, RESUMED, { request: key('k5'), at: T0 + 10 }), 'sess_1', recorded)).toBeUndefined();
    expect(checkReplay(api(200, RESUMED, { request: key('k6'), at: T0 + 10 }), 'sess_1', recorded)).toBeUndefined();
    const text = setup();
    checkReplay(api(200, 'plain', { request: key('k7') }), 'sess_1', text);
    expect(checkReplay(api(200, 'plain', { request: key('k7'), response: [['idempotent-replayed', 'true']], at: T0 + 10 }), 'sess_1', text)).toEqual({
      rule: 'idempotent-replay',
    });
  });
});

describe('webhook checks', () => {
  const body = JSON.stringify({ event: 'session.resumed', session: { id: 'sess_1' }, timestamp: '2026-11-28T01:00:00.000Z' });
  const context = (over: Partial<WebhookCheckContext> = {}): WebhookCheckContext => ({
    view,
    scheduleMs: WEBHOOK_DELIVERY_POLICY.retry.scheduleMs,
    signer: undefined,
    idOfEvent: createRecentMap(10),
    lastAttempt: createRecentMap<LastAttempt>(10),
    ...over,
  });
  function delivery(
    at: number,
    id: string | undefined,
    status: number | undefined,
    over: { headers?: Record<string, string | undefined>; body?: string; method?: string; secret?: string; retryAfter?: string } = {},
  ): Exchange {
    const text = over.body ?? body;
    const signed = createWebhookHeaders({ secret: over.secret, now: () => new Date(at) })(id ?? 'msg_x', text);
    const headers = { 'content-type': 'application/json', ...signed, ...(id === undefined ? { 'webhook-id': undefined } : {}), ...over.headers };
    return {
      kind: 'webhook',
      method: over.method ?? 'POST',
      target: '/hooks',
      startedAt: at,
      endedAt: at + 3,
      requestHeaders: headerList(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)),
      requestBody: text,
      status,
      responseHeaders: headerList(over.retryAfter === undefined ? [] : [['retry-after', over.retryAfter]]),
      responseBody: '',
    };
  }
  const faultsOf = (exchange: Exchange, ctx = context()) => checkDelivery(exchange, ctx).filter((f) => f.fault !== undefined);

  it('a clean delivery: shape, timestamp, one id per event', () => {
    expect(checkDelivery(delivery(T0, 'msg_1', 200), context())).toEqual([
      { rule: 'webhook-shape' },
      { rule: 'webhook-timestamp' },
      { rule: 'webhook-id-stable' },
    ]);
  });

  it('webhook-shape: method, headers, content-type, body', () => {
    expect(faultsOf(delivery(T0, 'msg_1', 200, { method: 'PUT' }))).toEqual([{ rule: 'webhook-shape', fault: 'method PUT, not POST' }]);
    expect(faultsOf(delivery(T0, 'msg_1', 200, { headers: { 'content-type': 'text/plain' } }))).toEqual([
      { rule: 'webhook-shape', fault: 'content-type "text/plain", not application/json' },
    ]);
    expect(faultsOf(delivery(T0, 'msg_1', 200, { headers: { 'content-type': undefined } }))).toEqual([
      { rule: 'webhook-shape', fault: 'content-type "", not application/json' },
    ]);
    expect(faultsOf(delivery(T0, 'msg_1', 200, { body: 'x' }))).toEqual([{ rule: 'webhook-shape', fault: 'body is not JSON' }]);
    expect(faultsOf(delivery(T0, 'msg_1', 200, { body: '{"event":"e"}' }))[0]?.fault).toMatch(/^body does not match SessionEvent/);
    expect(faultsOf(delivery(T0, 'msg_1', 200, { headers: { 'webhook-timestamp': 'soon' } }))[0]?.fault).toMatch(/^webhook-timestamp "soon" does not match/);
    const twice = {
      ...delivery(T0, 'msg_1', 200),
      requestHeaders: headerList([
        ['content-type', 'application/json'],
        ['webhook-id', 'msg_1'],
        ['webhook-id', 'msg_1'],
        ['webhook-timestamp', String(T0 / 1000)],
      ]),
    };
    expect(faultsOf(twice)).toEqual([{ rule: 'webhook-shape', fault: 'webhook-id sent 2 times' }]);
    expect(faultsOf({ ...delivery(T0, 'msg_1', 200), requestBody: undefined })).toEqual([]);
  });

  it('webhook-signature: only with a secret; unsigned, unverifiable or wrong', () => {
    const signer = new Webhook(SECRET);
    expect(checkDelivery(delivery(T0, 'msg_1', 200, { secret: SECRET }), context({ signer })).map((f) => f.rule)).toContain('webhook-signature');
    expect(faultsOf(delivery(T0, 'msg_1', 200, { secret: SECRET }), context({ signer }))).toEqual([]);
    expect(faultsOf(delivery(T0, 'msg_1', 200), context({ signer }))).toEqual([{ rule: 'webhook-signature', fault: 'unsigned: webhook-signature missing' }]);
    expect(faultsOf(delivery(T0, undefined, 200, { headers: { 'webhook-timestamp': undefined } }), context({ signer }))).toEqual([
      { rule: 'webhook-signature', fault: 'unsigned: webhook-id, webhook-timestamp, webhook-signature missing' },
    ]);
    const other = delivery(T0, 'msg_1', 200, { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(faultsOf(other, context({ signer }))).toEqual([{ rule: 'webhook-signature', fault: 'webhook-signature does not verify with the secret' }]);
    const rotated = delivery(T0, 'msg_1', 200, { secret: SECRET });
    const good = rotated.requestHeaders.get('webhook-signature')![0]!;
    const both = {
      ...rotated,
      requestHeaders: headerList([
        ...[...rotated.requestHeaders].flatMap(([n, vs]) => vs.map((v) => [n, n === 'webhook-signature' ? `v1,AAAA ${good}` : v] as [string, string])),
      ]),
    };
    expect(faultsOf(both, context({ signer }))).toEqual([]);
    const bad = {
      ...rotated,
      requestHeaders: headerList([
        ...[...rotated.requestHeaders].flatMap(([n, vs]) => vs.map((v) => [n, n === 'webhook-timestamp' ? 'x1' : v] as [string, string])),
      ]),
    };
    expect(faultsOf(bad, context({ signer })).filter((f) => f.rule === 'webhook-signature')).toEqual([
      { rule: 'webhook-signature', fault: 'webhook-signature cannot be verified (webhook-timestamp is not Unix seconds)' },
    ]);
    expect(faultsOf({ ...rotated, requestBody: undefined }, context({ signer }))).toEqual([
      { rule: 'webhook-signature', fault: 'webhook-signature cannot be verified (webhook-timestamp is not Unix seconds)' },
    ]);
  });

  it('webhook-timestamp: within the tolerance of the attempt', () => {
    const at = (seconds: number) => faultsOf(delivery(T0, 'msg_1', 200, { headers: { 'webhook-timestamp': String(T0 / 1000 + seconds) } }));
    expect(at(300)).toEqual([]);
    expect(at(-300)).toEqual([]);
    expect(at(301)).toEqual([{ rule: 'webhook-timestamp', fault: `webhook-timestamp ${T0 / 1000 + 301} is 301 s from the attempt (at most 300 s)` }]);
    expect(at(-600)).toEqual([{ rule: 'webhook-timestamp', fault: `webhook-timestamp ${T0 / 1000 - 600} is 600 s from the attempt (at most 300 s)` }]);
    expect(checkDelivery(delivery(T0, 'msg_1', 200, { headers: { 'webhook-timestamp': undefined } }), context()).map((f) => f.rule)).not.toContain(
      'webhook-timestamp',
    );
  });

  it('webhook-id-stable: one id per event identity', () => {
    const ctx = context();
    checkDelivery(delivery(T0, 'msg_1', 500), ctx);
    expect(faultsOf(delivery(T0 + 6000, 'msg_2', 200), ctx)).toEqual([
      { rule: 'webhook-id-stable', fault: 'webhook-id msg_2, but an earlier attempt of this event (2026-11-28T01:00:00.000Z) carried msg_1' },
    ]);
    expect(checkDelivery(delivery(T0, 'msg_9', 200, { body: '{"event":"e","session":{}}' }), context()).map((f) => f.rule)).not.toContain('webhook-id-stable');
    expect(checkDelivery(delivery(T0, undefined, 200), context()).map((f) => f.rule)).not.toContain('webhook-id-stable');
  });

  it('attempt-spacing: after a failure, no sooner than the schedule and Retry-After', () => {
    const ctx = context({ scheduleMs: [0, 1000, 5000] });
    expect(checkDelivery(delivery(T0, 'msg_1', 500), ctx).map((f) => f.rule)).not.toContain('attempt-spacing');
    expect(checkDelivery(delivery(T0 + 1000 - EARLY_SLACK_MS, 'msg_1', 500), ctx)).toContainEqual({ rule: 'attempt-spacing' });
    expect(faultsOf(delivery(T0 + 1000 - EARLY_SLACK_MS + 10, 'msg_1', 200), ctx)).toEqual([
      { rule: 'attempt-spacing', fault: 'attempt 3 came 10 ms after attempt 2, the schedule ask at least 5000 ms' },
    ]);
    const ask = context({ scheduleMs: [0, 1000] });
    checkDelivery(delivery(T0, 'msg_2', 503, { retryAfter: '3' }), ask);
    expect(faultsOf(delivery(T0 + 2000, 'msg_2', 200), ask)).toEqual([
      { rule: 'attempt-spacing', fault: 'attempt 2 came 2000 ms after attempt 1, the schedule and Retry-After ask at least 3000 ms' },
    ]);
    const ok = context({ scheduleMs: [0, 1000] });
    checkDelivery(delivery(T0, 'msg_3', 200), ok);
    expect(checkDelivery(delivery(T0 + 1, 'msg_3', 200), ok).map((f) => f.rule)).not.toContain('attempt-spacing');
    const gone = context({ scheduleMs: [0, 1000] });
    checkDelivery(delivery(T0, 'msg_4', 410), gone);
    expect(checkDelivery(delivery(T0 + 1, 'msg_4', 200), gone).map((f) => f.rule)).not.toContain('attempt-spacing');
    const silent = context({ scheduleMs: [0, 1000] });
    checkDelivery(delivery(T0, 'msg_5', undefined), silent);
    expect(faultsOf(delivery(T0 + 10, 'msg_5', 200), silent)).toEqual([
      { rule: 'attempt-spacing', fault: 'attempt 2 came 10 ms after attempt 1, the schedule ask at least 1000 ms' },
    ]);
  });

  it('identityOf: the identity fields, or undefined when one is missing', () => {
    expect(identityOf({ event: 'e', session: { id: 's' }, timestamp: 't' }, ['event', 'session.id', 'timestamp'])).toBe('["e","s","t"]');
    expect(identityOf({ event: 'e', session: 's', timestamp: 't' }, ['event', 'session.id', 'timestamp'])).toBeUndefined();
    expect(identityOf(null, ['event'])).toBeUndefined();
  });
});

it('the rules, in report order, each with its sentence and the policy numbers', () => {
  expect(WATCH_RULES.map((r) => r.id)).toEqual([
    'request-shape',
    'response-shape',
    'outcome',
    'error-shape',
    'not-paused',
    'idempotent-replay',
    'retry-after',
    'rate-limit-headers',
    'webhook-shape',
    'webhook-signature',
    'webhook-id-stable',
    'attempt-spacing',
    'webhook-timestamp',
  ]);
  const title = (id: string) => WATCH_RULES.find((r) => r.id === id)?.title;
  expect(title('retry-after')).toBe('A 429 or 503 answer carries Retry-After where the contract requires it, always readable');
  expect(title('webhook-id-stable')).toBe('Every attempt of one event (event, session.id, timestamp) carries the same webhook-id');
  expect(title('webhook-timestamp')).toBe('webhook-timestamp is within 300 s of the time of the attempt');
  for (const rule of WATCH_RULES) expect(rule.title, rule.id).toMatch(/^[A-Za-z].{30,}[^.]$/);
});
