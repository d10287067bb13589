/**
 * The circuit of the webhook endpoint (server/webhooks/endpoint-circuit-rules.ts): when it opens,
 * probes, closes and disables, with the policy's figures.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admitAttempt,
  CLOSED_CIRCUIT,
  nextHealth,
  probeDelayMs,
  type EndpointHealth,
  type HealthSignal,
} from '../../server/webhooks/endpoint-circuit-rules.js';
import { ENDPOINT_HEALTH_POLICY as POLICY } from '../../server/webhooks/endpoint-health-policy.js';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';

const NOW = Date.UTC(2026, 10, 28, 2, 0, 0);
const fail = (status?: number, probe = false): HealthSignal => ({ kind: 'failed', probe, ...(status !== undefined ? { status } : {}) });
const run = (signals: HealthSignal[], start: EndpointHealth = CLOSED_CIRCUIT, at = NOW) => signals.reduce((h, s) => nextHealth(h, s, at, POLICY), start);
const repeat = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('endpoint circuit rules', () => {
  it(`opens after ${POLICY.openAfterFailures} consecutive failures, not one before; the first probe ${POLICY.firstProbeAfterMs} ms later`, () => {
    const before = run(repeat(POLICY.openAfterFailures - 1, fail(500)));
    expect(before).toMatchObject({ state: 'closed', streak: POLICY.openAfterFailures - 1, failingSince: NOW });
    expect(admitAttempt(before, NOW)).toEqual({ kind: 'deliver' });
    const open = run([fail(500)], before);
    expect(open).toMatchObject({ state: 'open', reason: 'failures', probes: 0, nextProbeAt: NOW + POLICY.firstProbeAfterMs, changedAt: NOW });
    expect(admitAttempt(open, NOW + 1)).toEqual({ kind: 'hold', untilMs: NOW + POLICY.firstProbeAfterMs });
    expect(admitAttempt(open, NOW + POLICY.firstProbeAfterMs)).toEqual({ kind: 'probe' });
  });

  it('a success resets the streak; a success on a healthy endpoint returns the same state (nothing to write)', () => {
    const some = run(repeat(POLICY.openAfterFailures - 1, fail()));
    expect(run([{ kind: 'delivered' }], some)).toMatchObject({ state: 'closed', streak: 0, slowDowns: 0 });
    expect(run([{ kind: 'delivered' }], some).failingSince).toBeUndefined();
    expect(nextHealth(CLOSED_CIRCUIT, { kind: 'delivered' }, NOW, POLICY)).toBe(CLOSED_CIRCUIT);
  });

  it(`a storm of ${POLICY.openAfterSlowDowns} slow-down answers (429, 502, 504) opens it; another status in between breaks the storm`, () => {
    for (const status of POLICY.slowDownStatuses) {
      expect(run(repeat(POLICY.openAfterSlowDowns, fail(status)))).toMatchObject({ state: 'open', reason: 'slow_down' });
    }
    const broken = run([fail(429), fail(429), fail(500), fail(429), fail(429)]);
    expect(broken).toMatchObject({ state: 'closed', slowDowns: 2, streak: 5 });
  });

  it('a 410 disables the endpoint at once, from closed or open; nothing but enable closes it', () => {
    const gone = run([fail(410)]);
    expect(gone).toMatchObject({ state: 'disabled', reason: 'gone' });
    expect(admitAttempt(gone, NOW + 365 * 86_400_000)).toEqual({ kind: 'hold' });
    expect(run([{ kind: 'delivered' }, { kind: 'claim_probe' }, fail(500, true)], gone).state).toBe('disabled');
    expect(run([{ kind: 'enable' }], gone)).toEqual({
      ...CLOSED_CIRCUIT,
      changedAt: NOW,
      drainAt: NOW,
      drainWindow: POLICY.drainFirstWindow,
      drainOutstanding: 0,
    });
  });

  it(`the first probe no later than the schedule's second step; each next after ${POLICY.probeIntervalShare} of the outage so far, between ${POLICY.minProbeIntervalMs} and ${POLICY.maxProbeIntervalMs} ms; a claimed probe holds the others`, () => {
    expect(POLICY.firstProbeAfterMs).toBeLessThanOrEqual(WEBHOOK_DELIVERY_POLICY.retry.scheduleMs[1]!);
    let health = run(repeat(POLICY.openAfterFailures, fail()));
    expect(health.nextProbeAt).toBe(NOW + POLICY.firstProbeAfterMs);
    let at = NOW;
    const probes: number[] = [];
    // Probes of a day down (the endpoint is disabled after disableAfterMs).
    while (at < NOW + POLICY.disableAfterMs - POLICY.maxProbeIntervalMs) {
      at = health.nextProbeAt as number;
      probes.push(at);
      const claimed = nextHealth(health, { kind: 'claim_probe' }, at, POLICY);
      expect(admitAttempt(claimed, at).kind).toBe('hold');
      health = nextHealth(claimed, fail(500, true), at, POLICY);
      const gap = (health.nextProbeAt as number) - at;
      // A recovered endpoint waits at most this gap: a share of the outage, never past the cap, never below the floor.
      expect(gap).toBe(Math.min(POLICY.maxProbeIntervalMs, Math.max(POLICY.minProbeIntervalMs, Math.round((at - NOW) * POLICY.probeIntervalShare))));
    }
    // A dead endpoint: at most 60 000 / minProbeIntervalMs probes in any minute, one a maxProbeIntervalMs past the ramp.
    for (const start of probes)
      expect(probes.filter((p) => p >= start && p < start + 60_000).length).toBeLessThanOrEqual(Math.ceil(60_000 / POLICY.minProbeIntervalMs));
    expect(probeDelayMs(10 * 60_000, POLICY)).toBeLessThanOrEqual(60_000);
    expect(probeDelayMs(4 * 60_000, POLICY)).toBe(Math.max(POLICY.minProbeIntervalMs, 24_000));
    expect(probeDelayMs(2 * 3_600_000, POLICY)).toBe(POLICY.maxProbeIntervalMs);
  });

  it(`a failed probe ${POLICY.disableAfterMs} ms after the first failure disables; a successful probe closes`, () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const late = NOW + POLICY.disableAfterMs;
    expect(nextHealth(open, fail(500, true), late - 1, POLICY).state).toBe('open');
    expect(nextHealth(open, fail(500, true), late, POLICY)).toMatchObject({ state: 'disabled', reason: 'failing_too_long' });
    expect(nextHealth(open, { kind: 'delivered' }, late - 1, POLICY)).toEqual({
      ...CLOSED_CIRCUIT,
      changedAt: late - 1,
      drainAt: late - 1,
      drainWindow: POLICY.drainFirstWindow,
      drainOutstanding: 0,
    });
  });

  it('a failure under way when the circuit opened counts but does not move the probe', () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const straggler = nextHealth(open, fail(500, false), NOW + 5, POLICY);
    expect(straggler).toMatchObject({ state: 'open', streak: POLICY.openAfterFailures + 1, nextProbeAt: open.nextProbeAt });
  });

  it('a Retry-After longer than the probe interval puts the probe off as long', () => {
    const signals = [
      ...repeat(POLICY.openAfterSlowDowns - 1, fail(429)),
      { kind: 'failed', probe: false, status: 429, retryAfterMs: 3_600_000 } as HealthSignal,
    ];
    expect(run(signals).nextProbeAt).toBe(NOW + 3_600_000);
  });

  it(`the drain after a close: at once, a window of ${POLICY.drainFirstWindow} widened by one per acknowledgement up to ${POLICY.drainMaxWindow}; a slow-down or Retry-After starts over and waits; reopening stops it`, () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const closed = nextHealth(open, { kind: 'delivered' }, NOW, POLICY);
    expect(closed).toMatchObject({ state: 'closed', drainAt: NOW, drainWindow: POLICY.drainFirstWindow, drainOutstanding: 0 });
    const claim = (h: EndpointHealth, done: number, acked: number, at = NOW) => nextHealth(h, { kind: 'claim_drain', done, acked }, at, POLICY);
    const first = claim(closed, 0, 0);
    expect(first).toMatchObject({ drainBatch: POLICY.drainFirstWindow, drainOutstanding: POLICY.drainFirstWindow });
    // Nothing reported and the window full: the same object, nothing written.
    expect(claim(first, 0, 0, NOW + 1)).toBe(first);
    // Four acknowledgements: four done leave the window, which widens by four: eight more go.
    const second = claim(first, 4, 4, NOW + 2);
    expect(second).toMatchObject({ drainWindow: POLICY.drainFirstWindow + 4, drainBatch: 8, drainOutstanding: POLICY.drainFirstWindow + 4 });
    // Failures leave the window without widening it.
    expect(claim(second, 2, 0, NOW + 3)).toMatchObject({ drainWindow: POLICY.drainFirstWindow + 4, drainBatch: 2 });
    // Nobody reporting for an interval: nothing counted is in flight any more.
    expect(claim(second, 0, 0, NOW + 2 + POLICY.drainIntervalMs)).toMatchObject({ drainBatch: POLICY.drainFirstWindow + 4 });
    let wide = first;
    for (let k = 0; k < 64; k++) wide = claim(wide, wide.drainOutstanding as number, wide.drainOutstanding as number, NOW + k);
    expect(wide.drainWindow).toBe(POLICY.drainMaxWindow);
    expect(wide.drainBatch).toBe(POLICY.drainMaxWindow);
    const slowed = nextHealth(second, { kind: 'failed', probe: false, status: 429, retryAfterMs: 60_000 }, NOW + 3, POLICY);
    expect(slowed).toMatchObject({ state: 'closed', drainWindow: POLICY.drainFirstWindow, drainOutstanding: 0, drainAt: NOW + 3 + 60_000 });
    expect(claim(slowed, 5, 5, NOW + 4)).toBe(slowed);
    expect(nextHealth(second, { kind: 'delivered' }, NOW + 3, POLICY)).toMatchObject({ drainAt: second.drainAt, drainWindow: second.drainWindow });
    const reopened = run(repeat(POLICY.openAfterFailures, fail()), second, NOW + 3);
    expect(reopened.state).toBe('open');
    expect(reopened.drainAt).toBeUndefined();
    expect(nextHealth(second, { kind: 'released', asked: 8, found: 8 }, NOW + 3, POLICY)).toBe(second);
    const done = nextHealth(second, { kind: 'released', asked: 8, found: 3 }, NOW + 3, POLICY);
    expect(done.drainAt).toBeUndefined();
    expect(done.drainWindow).toBeUndefined();
    expect(nextHealth(done, { kind: 'resume_drain' }, NOW + 4, POLICY)).toMatchObject({ drainAt: NOW + 4, drainWindow: POLICY.drainFirstWindow });
    expect(nextHealth(open, { kind: 'resume_drain' }, NOW + 4, POLICY)).toBe(open);
  });

  it('one instance releases the event of a due probe; another release only after two rereads without a claim', () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const due = open.nextProbeAt as number;
    expect(nextHealth(open, { kind: 'release_probe' }, due - 1, POLICY)).toBe(open);
    const released = nextHealth(open, { kind: 'release_probe' }, due, POLICY);
    expect(released.probeReleasedAt).toBe(due);
    expect(nextHealth(released, { kind: 'release_probe' }, due + 2 * POLICY.refreshMs - 1, POLICY)).toBe(released);
    expect(nextHealth(released, { kind: 'release_probe' }, due + 2 * POLICY.refreshMs, POLICY).probeReleasedAt).toBe(due + 2 * POLICY.refreshMs);
    const next = nextHealth(nextHealth(released, { kind: 'claim_probe' }, due, POLICY), fail(500, true), due + 1, POLICY);
    expect(nextHealth(next, { kind: 'release_probe' }, next.nextProbeAt as number, POLICY).probeReleasedAt).toBe(next.nextProbeAt);
  });

  it('for any sequence: a closed circuit delivers, an open one has a probe time, only enable leaves disabled, a success closes any open one', () => {
    const signal = fc.oneof(
      fc.constant<HealthSignal>({ kind: 'delivered' }),
      fc.constant<HealthSignal>({ kind: 'claim_probe' }),
      fc.record({ kind: fc.constant('claim_drain' as const), done: fc.nat(50), acked: fc.nat(50) }),
      fc.constant<HealthSignal>({ kind: 'release_probe' }),
      fc.record({ kind: fc.constant('released' as const), asked: fc.nat(50), found: fc.nat(50) }),
      fc.constant<HealthSignal>({ kind: 'resume_drain' }),
      fc.record({ kind: fc.constant('failed' as const), probe: fc.boolean(), status: fc.constantFrom(200, 410, 429, 500, 502, 503, 504) }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(signal, fc.integer({ min: 0, max: 3_600_000 })), { maxLength: 200 }), (steps) => {
        let health = CLOSED_CIRCUIT;
        let at = NOW;
        for (const [s, dt] of steps) {
          at += dt;
          const next = nextHealth(health, s, at, POLICY);
          if (health.state === 'disabled') expect(next.state).toBe('disabled');
          if (health.state === 'open' && s.kind === 'delivered') expect(next.state).toBe('closed');
          if (next.state === 'open') expect(next.nextProbeAt).toBeTypeOf('number');
          if (next.state === 'disabled') expect(admitAttempt(next, at)).toEqual({ kind: 'hold' });
          if (next.state === 'closed') expect(admitAttempt(next, at)).toEqual({ kind: 'deliver' });
          expect(next.streak).toBeGreaterThanOrEqual(0);
          // Only a closed circuit drains, one batch at a time within the bound.
          if (next.state !== 'closed') expect(next.drainAt).toBeUndefined();
          if (next.drainAt !== undefined) expect(next.drainWindow).toBeGreaterThanOrEqual(1);
          if (next.drainWindow !== undefined) expect(next.drainWindow).toBeLessThanOrEqual(POLICY.drainMaxWindow);
          if (next.drainBatch !== undefined) expect(next.drainBatch).toBeLessThanOrEqual(POLICY.drainMaxWindow);
          if (next.drainOutstanding !== undefined) expect(next.drainOutstanding).toBeLessThanOrEqual(POLICY.drainMaxWindow);
          health = next;
        }
      }),
    );
  });
});
