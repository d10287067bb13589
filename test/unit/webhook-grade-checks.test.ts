/**
 * `webhook grade`'s checks on answers written here (no sockets): a context whose `deliver`
 * returns scripted results and records what was sent. Each check passes only on what it saw,
 * fails naming what was sent and what the service then does, and is n/o when it could not see.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { checkAck, checkAckBurst, checkAckHeadroom, checkHttps, percentile, urlName } from '../../cli/webhook-grade/ack-checks.js';
import { checkDedupe, checkDedupeShared, judgeProcessing } from '../../cli/webhook-grade/dedupe-checks.js';
import {
  checkDuplicateAfterDelay,
  checkDuplicateAgain,
  checkDuplicateConcurrent,
  checkDuplicateOtherInstance,
} from '../../cli/webhook-grade/duplicate-checks.js';
import { GRADE_DEFAULTS, type GradeContext, type GradeSettings, type Payload } from '../../cli/webhook-grade/grade-context.js';
import type { ObservedCounts } from '../../cli/webhook-grade/observe.js';
import { checkLateEvent, checkOutOfOrder, checkPayloadForms, checkUnknownEvent } from '../../cli/webhook-grade/payload-checks.js';
import { checkSignatureInvalid, checkSignatureValid } from '../../cli/webhook-grade/signature-checks.js';
import type { AttemptHeaders } from '../../cli/webhook-signing.js';

/** The report's spelling of "not observable", in one place. */
const NO = 'n/o' as const;

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0123456789ab';
const NOW = '2026-11-28T01:00:00.000Z';

const ok = (durationMs = 3, duplicate?: boolean): DeliveryResult => ({
  delivered: true,
  status: 200,
  resolvedAddress: '127.0.0.1',
  durationMs,
  response: { body: duplicate === undefined ? 'ok' : JSON.stringify({ received: true, duplicate }), bytes: 2, truncated: false },
});
const refusedWith = (status: number, durationMs = 2): DeliveryResult => ({
  delivered: false,
  reason: 'bad_status',
  status,
  message: `127.0.0.1:9 answered ${status}; only 200 counts as delivered.`,
  durationMs,
});
const silent = (): DeliveryResult => ({ delivered: false, reason: 'timeout', message: 'gave no 200 within 5000 ms', durationMs: 5000 });

interface Sent {
  target: number;
  body: Payload;
  webhookId?: string;
  headers?: AttemptHeaders;
}

/** A context answering each delivery with `answer(sent, n)`; `observed` is what --observe reads. */
function fakeContext(
  answer: (sent: Sent, n: number) => DeliveryResult,
  options: { settings?: Partial<GradeSettings>; urls?: string[]; observed?: () => ObservedCounts } = {},
) {
  const sent: Sent[] = [];
  let labels = 0;
  const ctx: GradeContext = {
    urls: options.urls ?? ['http://127.0.0.1:9/hooks'],
    settings: { ...GRADE_DEFAULTS, insecureLocalhost: true, delayMs: 0, settleMs: 0, ...options.settings },
    newEvent: (label) => ({ event: 'session.resumed', session: { id: `sess_${label}_${(labels += 1)}` }, timestamp: NOW }),
    deliver: async (target, body, how = {}) => {
      const one: Sent = { target, body, webhookId: how.webhookId, headers: how.headers };
      sent.push(one);
      const result = answer(one, sent.length - 1);
      ctx.results.push(result);
      return result;
    },
    readObserved: async () => options.observed?.() ?? { ok: false, message: 'no observe' },
    groups: { sameInstance: [] },
    verdicts: new Map(),
    results: [],
    answered: false,
  };
  return { ctx, sent };
}

describe('ack checks', () => {
  it('names URLs without printing them', () => {
    expect(urlName(fakeContext(() => ok()).ctx, 0)).toBe('the URL');
    expect(urlName(fakeContext(() => ok(), { urls: ['https://a.example/x', 'https://b.example/y'] }).ctx, 1)).toBe('URL 2');
  });

  it('https: https:// passes; plain http:// only on loopback with --insecure-localhost', async () => {
    expect(await checkHttps(fakeContext(() => ok(), { urls: ['https://a.example/x', 'https://b.example/y'] }).ctx)).toEqual({
      grade: 'pass',
      evidence: 'https://',
    });
    expect(await checkHttps(fakeContext(() => ok()).ctx)).toEqual({
      grade: 'pass',
      evidence: 'http:// on loopback (--insecure-localhost: local testing only)',
    });
    const plain = await checkHttps(fakeContext(() => ok(), { settings: { insecureLocalhost: false } }).ctx);
    expect(plain.grade).toBe('fail');
    expect(plain.evidence).toMatch(/^the URL: .*--insecure-localhost/);
    const remote = await checkHttps(fakeContext(() => ok(), { urls: ['https://a.example/x', 'http://203.0.113.9/hooks'] }).ctx);
    expect(remote).toMatchObject({ grade: 'fail' });
    expect(remote.evidence).toMatch(/^URL 2: /);
    const both = await checkHttps(fakeContext(() => ok(), { urls: ['https://a.example/x', 'http://127.0.0.1:9/h'] }).ctx);
    expect(both.evidence).toBe('https://; http:// on loopback (--insecure-localhost: local testing only)');
  });

  it('ack: one event per URL, each 200; a failure says what the service does', async () => {
    const two = fakeContext((s) => ok(3 + s.target), { urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'] });
    expect(await checkAck(two.ctx)).toEqual({ grade: 'pass', evidence: 'URL 1: 200 in 3 ms, URL 2: 200 in 4 ms' });
    expect(two.sent.map((s) => s.target)).toEqual([0, 1]);
    expect(two.sent[0]?.body).not.toEqual(two.sent[1]?.body);
    expect(await checkAck(fakeContext(() => ok(7)).ctx)).toEqual({ grade: 'pass', evidence: '200 in 7 ms' });
    const failed = await checkAck(fakeContext(() => refusedWith(202)).ctx);
    expect(failed).toMatchObject({ grade: 'fail', evidence: 'one delivery: 127.0.0.1:9 answered 202; only 200 counts as delivered.' });
    expect(failed.next).toMatch(/^The service counts this as a failed delivery although the receiver took it/);
  });

  it('percentile by nearest rank', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([5], 0.01)).toBe(5);
    expect(percentile([], 0.5)).toBe(0);
  });

  it('ack-burst: distinct events spread over the URLs; all 200 passes with p50 and p99', async () => {
    const { ctx, sent } = fakeContext((_s, n) => ok(n + 1), { settings: { burst: 4 }, urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'] });
    expect(await checkAckBurst(ctx)).toEqual({
      grade: 'pass',
      evidence: '4 concurrent distinct deliveries all answered 200, p50 2 ms, p99 4 ms (deadline 5000 ms)',
    });
    expect(sent.map((s) => s.target)).toEqual([0, 1, 0, 1]);
    expect(new Set(sent.map((s) => JSON.stringify(s.body))).size).toBe(4);
    const one = await checkAckBurst(fakeContext((_s, n) => (n === 1 ? refusedWith(500) : ok()), { settings: { burst: 3 } }).ctx);
    expect(one).toMatchObject({
      grade: 'fail',
      evidence:
        '3 concurrent distinct deliveries, p50 3 ms, p99 3 ms (deadline 5000 ms) (1 of 3 failed): 127.0.0.1:9 answered 500; only 200 counts as delivered.',
    });
  });

  it('ack-headroom: over every delivery of the run; graded alone, it sends one of its own', async () => {
    const { ctx, sent } = fakeContext((_s, n) => ok(9 + n));
    await checkAckBurst({ ...ctx, settings: { ...ctx.settings, burst: 2 } });
    expect(await checkAckHeadroom(ctx)).toEqual({
      grade: 'pass',
      evidence: 'median 9 ms, slowest 10 ms over 2 answered deliveries (deadline 5000 ms: 4990 ms to spare)',
    });
    expect(sent).toHaveLength(2);
    const alone = fakeContext(() => silent());
    expect(await checkAckHeadroom(alone.ctx)).toEqual({ grade: 'fail', evidence: '1 of 1 deliveries got no answer within 5000 ms (no headroom)' });
    expect(alone.sent).toHaveLength(1);
  });
});

describe('duplicate checks', () => {
  it('again: the same event with the same webhook-id, at once; kept for dedupe', async () => {
    const { ctx, sent } = fakeContext(() => ok(4));
    expect(await checkDuplicateAgain(ctx)).toEqual({ grade: 'pass', evidence: 'the same event again at once: 200 in 4 ms' });
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toBe(sent[0]?.body);
    expect(sent[0]?.webhookId).toMatch(/^msg_/);
    expect(sent[1]?.webhookId).toBe(sent[0]?.webhookId);
    expect(ctx.groups.repeated).toBe(ctx.groups.sameInstance[0]);
    expect(ctx.groups.repeated?.results).toHaveLength(2);
  });

  it('again: a first delivery that failed sends no duplicate (n/o); a failed duplicate fails', async () => {
    const first = fakeContext(() => refusedWith(500));
    expect(await checkDuplicateAgain(first.ctx)).toEqual({
      grade: NO,
      evidence: 'the first delivery of the event failed, so no duplicate was sent: 127.0.0.1:9 answered 500; only 200 counts as delivered.',
    });
    expect(first.sent).toHaveLength(1);
    expect(first.ctx.groups.sameInstance).toHaveLength(1);
    const second = await checkDuplicateAgain(fakeContext((_s, n) => (n === 0 ? ok() : refusedWith(409))).ctx);
    expect(second).toMatchObject({ grade: 'fail', evidence: 'the same event again at once: 127.0.0.1:9 answered 409; only 200 counts as delivered.' });
  });

  it('after a delay: only when delivered twice at once; names the delay', async () => {
    const { ctx, sent } = fakeContext(() => ok(6), { settings: { delayMs: 1 } });
    expect(await checkDuplicateAfterDelay(ctx)).toEqual({ grade: NO, evidence: 'the event was not delivered twice at once, so it was not sent later either.' });
    await checkDuplicateAgain(ctx);
    expect(await checkDuplicateAfterDelay(ctx)).toEqual({ grade: 'pass', evidence: 'the same event again after 1 ms: 200 in 6 ms' });
    expect(sent[2]?.webhookId).toBe(sent[0]?.webhookId);
    expect(sent[2]?.body).toBe(sent[0]?.body);
    expect(ctx.groups.repeated?.label).toBe('delivered again at once and after 1 ms');
    expect(ctx.groups.repeated?.results).toHaveLength(3);
    const once = fakeContext(() => refusedWith(500));
    await checkDuplicateAgain(once.ctx);
    expect((await checkDuplicateAfterDelay(once.ctx)).grade).toBe(NO);
    const late = fakeContext((_s, n) => (n < 2 ? ok() : refusedWith(503)));
    await checkDuplicateAgain(late.ctx);
    expect(await checkDuplicateAfterDelay(late.ctx)).toMatchObject({
      grade: 'fail',
      evidence: 'the same event again after 0 ms: 127.0.0.1:9 answered 503; only 200 counts as delivered.',
    });
  });

  it('concurrent copies: all with one webhook-id; the slowest is named', async () => {
    const { ctx, sent } = fakeContext((_s, n) => ok(10 + n), { settings: { copies: 3 } });
    expect(await checkDuplicateConcurrent(ctx)).toEqual({ grade: 'pass', evidence: '3 copies of a new event at once: all 200, the slowest in 12 ms' });
    expect(new Set(sent.map((s) => s.webhookId)).size).toBe(1);
    expect(sent[0]?.webhookId).toMatch(/^msg_/);
    expect(ctx.groups.sameInstance[0]).toMatchObject({ label: '3 concurrent copies', webhookId: sent[0]?.webhookId });
    const failed = await checkDuplicateConcurrent(fakeContext((_s, n) => (n === 1 ? refusedWith(500) : ok()), { settings: { copies: 2 } }).ctx);
    expect(failed).toMatchObject({
      grade: 'fail',
      evidence: '2 copies of a new event at once (1 of 2 failed): 127.0.0.1:9 answered 500; only 200 counts as delivered.',
    });
  });

  it('other instance: n/o with one URL; the same event at every other URL', async () => {
    expect((await checkDuplicateOtherInstance(fakeContext(() => ok()).ctx)).grade).toBe(NO);
    const urls = ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c'];
    const { ctx, sent } = fakeContext(() => ok(), { urls });
    expect(await checkDuplicateOtherInstance(ctx)).toEqual({ grade: 'pass', evidence: 'the same event at 2 other instance(s): all 200' });
    expect(sent.map((s) => s.target)).toEqual([0, 1, 2]);
    expect(new Set(sent.map((s) => s.webhookId)).size).toBe(1);
    expect(ctx.groups.otherInstance?.label).toBe('delivered to each of 3 instances');
    expect(ctx.groups.otherInstance?.results).toHaveLength(3);
    const first = fakeContext(() => refusedWith(500), { urls });
    expect((await checkDuplicateOtherInstance(first.ctx)).grade).toBe(NO);
    expect(first.sent).toHaveLength(1);
    const second = fakeContext((s) => (s.target === 1 ? refusedWith(500) : ok()), { urls });
    expect(await checkDuplicateOtherInstance(second.ctx)).toMatchObject({
      grade: 'fail',
      evidence: 'the same event at URL 2: 127.0.0.1:9 answered 500; only 200 counts as delivered.',
    });
    expect(second.sent).toHaveLength(2);
  });
});

describe('dedupe checks', () => {
  const group = (results: DeliveryResult[], label = 'g') => ({
    label,
    event: { event: 'session.resumed', session: { id: 'sess_1' }, timestamp: NOW },
    webhookId: 'msg_1',
    results,
  });

  it('by the answers: one processing passes, two fail, no flag is n/o with the hint', async () => {
    const { ctx } = fakeContext(() => ok());
    expect(await judgeProcessing(ctx, [group([ok(1, false), ok(1, true), refusedWith(500)].slice(0, 2), 'again')], 'advice')).toEqual({
      grade: 'pass',
      evidence: "again: 2 × 200, processed 1 time(s) (by the answers' duplicate field)",
    });
    expect(await judgeProcessing(ctx, [group([ok(1, false), ok(1, false)], 'again')], 'twice.')).toEqual({
      grade: 'fail',
      evidence: "again: 2 × 200, processed 2 time(s) (by the answers' duplicate field): twice.",
    });
    const hint = await judgeProcessing(ctx, [group([ok(1), ok(1)])], 'x');
    expect(hint.grade).toBe(NO);
    expect(hint.evidence).toMatch(/^the answers do not say whether a delivery was a duplicate/);
    expect((await judgeProcessing(ctx, [group([ok(1, false), ok(1)])], 'x')).grade).toBe(NO);
  });

  it('by the answers: a copy without 200 makes it n/o; no group answered is n/o', async () => {
    const { ctx } = fakeContext(() => ok());
    expect(await judgeProcessing(ctx, [group([ok(1, false), refusedWith(500)], 'copies')], 'x')).toEqual({
      grade: NO,
      evidence: 'copies: 1 of 2 deliveries got no 200, so the answers do not show whether they were processed (--observe <url> would).',
    });
    expect(await judgeProcessing(ctx, [group([refusedWith(500)])], 'x')).toEqual({
      grade: NO,
      evidence: 'no duplicate was answered 200 (see the rules above).',
    });
    expect(await judgeProcessing(ctx, [], 'x')).toMatchObject({ grade: NO });
    // A group that got no 200 is left out; the others are judged.
    expect((await judgeProcessing(ctx, [group([refusedWith(500)]), group([ok(1, false)], 'b')], 'x')).evidence).toBe(
      "b: 1 × 200, processed 1 time(s) (by the answers' duplicate field)",
    );
  });

  it('by --observe: the counts of the event key; never counted or unreadable is n/o', async () => {
    const key = 'session.resumed sess_1 2026-11-28T01:00:00.000Z';
    const counts = (n: number): ObservedCounts => ({ ok: true, counts: new Map([[key, n]]) });
    const settings = { observe: 'http://127.0.0.1:9/processed' };
    expect(await judgeProcessing(fakeContext(() => ok(), { settings, observed: () => counts(1) }).ctx, [group([ok(), ok()], 'again')], 'x')).toEqual({
      grade: 'pass',
      evidence: 'again: 2 × 200, processed 1 time(s) (by --observe)',
    });
    expect((await judgeProcessing(fakeContext(() => ok(), { settings, observed: () => counts(2) }).ctx, [group([ok(), ok()])], 'dup.')).evidence).toBe(
      'g: 2 × 200, processed 2 time(s) (by --observe): dup.',
    );
    expect(await judgeProcessing(fakeContext(() => ok(), { settings, observed: () => counts(0) }).ctx, [group([ok()])], 'x')).toEqual({
      grade: NO,
      evidence: `--observe never counted ${JSON.stringify(key)} within 0 ms: does it use the documented key?`,
    });
    expect(
      await judgeProcessing(
        fakeContext(() => ok(), { settings, observed: () => ({ ok: false, message: '--observe answered 500.' }) }).ctx,
        [group([ok()])],
        'x',
      ),
    ).toEqual({ grade: NO, evidence: '--observe answered 500.' });
    let reads = 0;
    const flaky = () => ((reads += 1) === 1 ? counts(1) : ({ ok: false, message: 'gone' } as const));
    expect(await judgeProcessing(fakeContext(() => ok(), { settings, observed: flaky }).ctx, [group([ok()])], 'x')).toEqual({ grade: NO, evidence: 'gone' });
  });

  it('by --observe: waits for the counts within settleMs, then reads once more', async () => {
    const key = 'session.resumed sess_1 2026-11-28T01:00:00.000Z';
    let reads = 0;
    const observed = (): ObservedCounts => ({ ok: true, counts: new Map([[key, (reads += 1) < 3 ? 0 : 1]]) });
    const { ctx } = fakeContext(() => ok(), { settings: { observe: 'http://x/p', settleMs: 2000 }, observed });
    expect((await judgeProcessing(ctx, [group([ok()])], 'x')).grade).toBe('pass');
    expect(reads).toBe(4);
  });

  it('dedupe judges the same-instance groups; dedupe-shared needs two URLs and a passing dedupe', async () => {
    const { ctx } = fakeContext(() => ok());
    ctx.groups.sameInstance.push(group([ok(1, false), ok(1, false)]));
    const dedupe = await checkDedupe(ctx);
    expect(dedupe.evidence).toMatch(
      /: a duplicate was processed again\. Deliveries are at least once: dedupe by event, session id and timestamp \(or webhook-id\)\.$/,
    );
    expect((await checkDedupeShared(ctx)).evidence).toBe(
      'one URL given: give the URL of each instance to check that they share their record of processed events.',
    );
    const two = fakeContext(() => ok(), { urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'] }).ctx;
    expect((await checkDedupeShared(two)).grade).toBe(NO);
    two.groups.otherInstance = group([ok(1, false), ok(1, false)], 'shared');
    two.verdicts.set('dedupe', { grade: 'fail', evidence: '' });
    expect(await checkDedupeShared(two)).toEqual({ grade: NO, evidence: 'not judged: duplicates are processed again at one instance already (see dedupe).' });
    two.verdicts.set('dedupe', { grade: 'pass', evidence: '' });
    expect((await checkDedupeShared(two)).evidence).toMatch(
      /^shared: 2 × 200, processed 2 time\(s\) .*: another instance processed the duplicate again: keep the record of processed events in storage every instance shares/,
    );
    two.groups.otherInstance = group([ok(1, false), ok(1, true)], 'shared');
    expect((await checkDedupeShared(two)).grade).toBe('pass');
  });
});

describe('payload checks', () => {
  it('payload forms: nested and flat, with and without data, each 200', async () => {
    const { ctx, sent } = fakeContext(() => ok());
    expect(await checkPayloadForms(ctx)).toEqual({
      grade: 'pass',
      evidence: '4 forms answered 200: nested session.id with data, nested session.id without data, flat session_id with data, flat session_id without data',
    });
    const [nestedData, nested, flatData, flat] = sent.map((s) => s.body as Record<string, unknown>);
    expect(nestedData).toMatchObject({
      event: 'session.resumed',
      session: { id: expect.stringMatching(/^sess_nested_data_/) },
      data: { reason: 'webhook grade' },
    });
    expect(nested).not.toHaveProperty('data');
    expect(nested).toHaveProperty('session.id');
    expect(flatData).toMatchObject({ session_id: expect.stringMatching(/^sess_flat_data_/), data: { reason: 'webhook grade' }, timestamp: NOW });
    expect(flatData).not.toHaveProperty('session');
    expect(flat).not.toHaveProperty('data');
    expect(flat).not.toHaveProperty('session');
  });

  it('the first form refused fails naming it, and nothing more is sent', async () => {
    const { ctx, sent } = fakeContext((_s, n) => (n === 2 ? refusedWith(400) : ok()));
    expect(await checkPayloadForms(ctx)).toMatchObject({
      grade: 'fail',
      evidence: 'flat session_id with data: 127.0.0.1:9 answered 400; only 200 counts as delivered.',
    });
    expect(sent).toHaveLength(3);
  });

  it('an unknown event name, a late event, two events out of order', async () => {
    const unknown = fakeContext(() => ok());
    expect(await checkUnknownEvent(unknown.ctx)).toEqual({ grade: 'pass', evidence: 'event "grade.unknown_kind" answered 200' });
    expect(unknown.sent[0]?.body).toMatchObject({ event: 'grade.unknown_kind', session: { id: expect.stringMatching(/^sess_unknown_/) } });
    expect((await checkLateEvent(fakeContext(() => refusedWith(400)).ctx)).evidence).toBe(
      'an event 23 h old: 127.0.0.1:9 answered 400; only 200 counts as delivered.',
    );
    expect((await checkOutOfOrder(fakeContext(() => refusedWith(400)).ctx)).evidence).toBe(
      'the later event (session.resumed) first: 127.0.0.1:9 answered 400; only 200 counts as delivered.',
    );
    expect((await checkUnknownEvent(fakeContext(() => refusedWith(400)).ctx)).evidence).toBe(
      'event "grade.unknown_kind": 127.0.0.1:9 answered 400; only 200 counts as delivered.',
    );
    const late = fakeContext(() => ok());
    const verdict = await checkLateEvent(late.ctx);
    const after = Date.now();
    const stamp = String((late.sent[0]?.body as { timestamp: string }).timestamp);
    expect(late.sent[0]?.body).toMatchObject({ session: { id: expect.stringMatching(/^sess_late_/) } });
    expect(verdict).toEqual({ grade: 'pass', evidence: `an event 23 h old (timestamp ${stamp}) answered 200` });
    expect(after - Date.parse(stamp)).toBeGreaterThanOrEqual(23 * 3_600_000);
    expect(after - Date.parse(stamp)).toBeLessThan(23 * 3_600_000 + 60_000);
    const order = fakeContext(() => ok());
    expect(await checkOutOfOrder(order.ctx)).toEqual({ grade: 'pass', evidence: 'session.resumed, then session.paused of 1 min before: both answered 200' });
    const [later, earlier] = order.sent.map((s) => s.body as { event: string; session: { id: string }; timestamp: string });
    expect(later?.event).toBe('session.resumed');
    expect(earlier?.event).toBe('session.paused');
    expect(earlier?.session.id).toBe(later?.session.id);
    expect(later?.session.id).toMatch(/^sess_order_/);
    expect(Date.parse(later!.timestamp) - Date.parse(earlier!.timestamp)).toBe(60_000);
    expect((await checkOutOfOrder(fakeContext((_s, n) => (n === 1 ? refusedWith(400) : ok())).ctx)).evidence).toMatch(
      /^then the earlier one \(session\.paused, 1 min before\): /,
    );
  });
});

describe('signature checks', () => {
  const verify = (secret: string, sent: Sent) => {
    const body = JSON.stringify(sent.body);
    const headers = (sent.headers as AttemptHeaders)(body);
    return new Webhook(secret).verify(body, headers);
  };

  it('without --secret both are n/o and nothing is sent', async () => {
    const { ctx, sent } = fakeContext(() => ok());
    for (const check of [checkSignatureValid, checkSignatureInvalid])
      expect((await check(ctx)).evidence).toMatch(/^no --secret given: pass the receiver's signing secret/);
    expect(sent).toHaveLength(0);
  });

  it('valid: a delivery signed with the secret answered 200', async () => {
    const { ctx } = fakeContext(() => ok(5), { settings: { secret: SECRET } });
    expect(await checkSignatureValid(ctx)).toEqual({ grade: 'pass', evidence: 'a delivery signed with --secret: 200 in 5 ms' });
    expect((await checkSignatureValid(fakeContext(() => refusedWith(401), { settings: { secret: SECRET } }).ctx)).evidence).toBe(
      'a delivery signed with --secret: 127.0.0.1:9 answered 401; only 200 counts as delivered.',
    );
    const { sent } = fakeContext(() => ok());
    const signed = fakeContext(() => ok(), { settings: { secret: SECRET } });
    await checkSignatureValid(signed.ctx);
    expect(sent).toHaveLength(0);
    expect(signed.sent[0]?.body).toMatchObject({ session: { id: expect.stringMatching(/^sess_signed_/) } });
  });

  it('invalid: three bad signatures, each of which fails to verify for its own reason', async () => {
    const { ctx, sent } = fakeContext(() => refusedWith(401), { settings: { secret: SECRET } });
    expect(await checkSignatureInvalid(ctx)).toEqual({ grade: 'pass', evidence: 'a tampered body 401, another secret 401, a timestamp 10 min old 401' });
    const [tampered, other, stale] = sent as [Sent, Sent, Sent];
    const ids = sent.map((one) => String((one.body as { session: { id: string } }).session.id));
    expect(ids[0]).toMatch(/^sess_tampered_\d+_changed$/);
    expect(ids[1]).toMatch(/^sess_other_secret_/);
    expect(ids[2]).toMatch(/^sess_stale_/);
    expect(() => verify(SECRET, tampered)).toThrow(/No matching signature/);
    expect(String((tampered.body as { session: { id: string } }).session.id)).toMatch(/_changed$/);
    expect(() => verify(SECRET, other)).toThrow(/No matching signature/);
    expect(() => verify(SECRET, stale)).toThrow(/too old/);
    const headers = (stale.headers as AttemptHeaders)(JSON.stringify(stale.body));
    const age = Date.now() / 1000 - Number(headers['webhook-timestamp']);
    expect(age).toBeGreaterThan(599);
    expect(age).toBeLessThan(605);
  });

  it('invalid: one taken with 2xx fails; one without an answer is n/o, never pass', async () => {
    const taken = await checkSignatureInvalid(fakeContext((_s, n) => (n === 1 ? refusedWith(202) : refusedWith(401)), { settings: { secret: SECRET } }).ctx);
    expect(taken.grade).toBe('fail');
    expect(taken.evidence).toMatch(
      /^a tampered body 401, another secret 202, a timestamp 10 min old 401: another secret answered 2xx\. Anyone who knows the URL/,
    );
    const accepted = await checkSignatureInvalid(fakeContext((_s, n) => (n === 0 ? ok() : refusedWith(401)), { settings: { secret: SECRET } }).ctx);
    expect(accepted.evidence).toMatch(/^a tampered body 200, .*: a tampered body answered 2xx/);
    const quiet = await checkSignatureInvalid(fakeContext((_s, n) => (n === 2 ? silent() : refusedWith(401)), { settings: { secret: SECRET } }).ctx);
    expect(quiet).toEqual({
      grade: NO,
      evidence:
        'a tampered body 401, another secret 401, a timestamp 10 min old no answer (timeout): no refusal observed for a timestamp 10 min old (a refusal is an answer, e.g. 401, within the deadline).',
    });
    const two = await checkSignatureInvalid(fakeContext((_s, n) => (n === 0 ? refusedWith(401) : ok()), { settings: { secret: SECRET } }).ctx);
    expect(two.evidence).toBe(
      'a tampered body 401, another secret 200, a timestamp 10 min old 200: another secret and a timestamp 10 min old answered 2xx. Anyone who knows the URL can then make the receiver process forged or replayed events: verify the signature over the raw body and refuse (401) one that does not match or is more than 5 minutes off.',
    );
    const quiet2 = await checkSignatureInvalid(fakeContext((_s, n) => (n === 0 ? refusedWith(401) : silent()), { settings: { secret: SECRET } }).ctx);
    expect(quiet2.evidence).toMatch(/: no refusal observed for another secret and a timestamp 10 min old \(/);
    const big = await checkSignatureInvalid(fakeContext(() => refusedWith(300), { settings: { secret: SECRET } }).ctx);
    expect(big.grade).toBe('pass');
    const edge = await checkSignatureInvalid(fakeContext(() => refusedWith(299), { settings: { secret: SECRET } }).ctx);
    expect(edge.grade).toBe('fail');
  });
});
