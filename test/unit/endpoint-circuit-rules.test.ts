/**
 * The circuit of the webhook endpoint (server/webhooks/endpoint-circuit-rules.ts): when it opens,
 * probes, closes and disables, with the policy's figures.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admission, HEALTHY, nextHealth, probeDelayMs, type EndpointHealth, type HealthSignal } from '../../server/webhooks/endpoint-circuit-rules.js';
import { ENDPOINT_HEALTH_POLICY as POLICY } from '../../server/webhooks/endpoint-health-policy.js';

const NOW = Date.UTC(2026, 10, 28, 2, 0, 0);
const fail = (status?: number, probe = false): HealthSignal => ({ kind: 'failed', probe, ...(status !== undefined ? { status } : {}) });
const run = (signals: HealthSignal[], start: EndpointHealth = HEALTHY, at = NOW) => signals.reduce((h, s) => nextHealth(h, s, at, POLICY), start);
const repeat = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('endpoint circuit rules', () => {
  it(`opens after ${POLICY.openAfterFailures} consecutive failures, not one before; the first probe ${POLICY.firstProbeAfterMs} ms later`, () => {
    const before = run(repeat(POLICY.openAfterFailures - 1, fail(500)));
    expect(before).toMatchObject({ state: 'closed', streak: POLICY.openAfterFailures - 1, failingSince: NOW });
    expect(admission(before, NOW)).toEqual({ kind: 'deliver' });
    const open = run([fail(500)], before);
    expect(open).toMatchObject({ state: 'open', reason: 'failures', probes: 0, nextProbeAt: NOW + POLICY.firstProbeAfterMs, changedAt: NOW });
    expect(admission(open, NOW + 1)).toEqual({ kind: 'hold', untilMs: NOW + POLICY.firstProbeAfterMs });
    expect(admission(open, NOW + POLICY.firstProbeAfterMs)).toEqual({ kind: 'probe' });
  });

  it('a success resets the streak; a success on a healthy endpoint returns the same state (nothing to write)', () => {
    const some = run(repeat(POLICY.openAfterFailures - 1, fail()));
    expect(run([{ kind: 'delivered' }], some)).toMatchObject({ state: 'closed', streak: 0, slowDowns: 0 });
    expect(run([{ kind: 'delivered' }], some).failingSince).toBeUndefined();
    expect(nextHealth(HEALTHY, { kind: 'delivered' }, NOW, POLICY)).toBe(HEALTHY);
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
    expect(admission(gone, NOW + 365 * 86_400_000)).toEqual({ kind: 'hold' });
    expect(run([{ kind: 'delivered' }, { kind: 'claim_probe' }, fail(500, true)], gone).state).toBe('disabled');
    expect(run([{ kind: 'enable' }], gone)).toEqual({ ...HEALTHY, changedAt: NOW, drainAt: NOW, drainBatch: POLICY.drainFirstBatch });
  });

  it('a failed probe moves the next one on by a growing interval, capped; a claimed probe holds the others', () => {
    let health = run(repeat(POLICY.openAfterFailures, fail()));
    let at = NOW;
    const gaps: number[] = [];
    for (let i = 0; i < 12; i++) {
      at = health.nextProbeAt as number;
      const claimed = nextHealth(health, { kind: 'claim_probe' }, at, POLICY);
      expect(admission(claimed, at).kind).toBe('hold');
      health = nextHealth(claimed, fail(500, true), at, POLICY);
      gaps.push((health.nextProbeAt as number) - at);
    }
    expect(gaps.slice(0, 4)).toEqual([1, 2, 4, 8].map((k) => POLICY.firstProbeAfterMs * POLICY.probeBackoffFactor * k));
    expect(Math.max(...gaps)).toBe(POLICY.maxProbeIntervalMs);
    expect(probeDelayMs(10_000, POLICY)).toBe(POLICY.maxProbeIntervalMs);
  });

  it(`a failed probe ${POLICY.disableAfterMs} ms after the first failure disables; a successful probe closes`, () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const late = NOW + POLICY.disableAfterMs;
    expect(nextHealth(open, fail(500, true), late - 1, POLICY).state).toBe('open');
    expect(nextHealth(open, fail(500, true), late, POLICY)).toMatchObject({ state: 'disabled', reason: 'failing_too_long' });
    expect(nextHealth(open, { kind: 'delivered' }, late - 1, POLICY)).toEqual({ ...HEALTHY, changedAt: late - 1, drainAt: late - 1 + POLICY.drainIntervalMs, drainBatch: POLICY.drainFirstBatch });
  });

  it('a failure under way when the circuit opened counts but does not move the probe', () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const straggler = nextHealth(open, fail(500, false), NOW + 5, POLICY);
    expect(straggler).toMatchObject({ state: 'open', streak: POLICY.openAfterFailures + 1, nextProbeAt: open.nextProbeAt });
  });

  it('a Retry-After longer than the probe interval puts the probe off as long', () => {
    const signals = [...repeat(POLICY.openAfterSlowDowns - 1, fail(429)), { kind: 'failed', probe: false, status: 429, retryAfterMs: 3_600_000 } as HealthSignal];
    expect(run(signals).nextProbeAt).toBe(NOW + 3_600_000);
  });

  it(`the drain after a close: one release per ${POLICY.drainIntervalMs} ms, its batch ${POLICY.drainFirstBatch} then ×${POLICY.drainBatchFactor}; a slow-down or Retry-After starts over and waits; reopening stops it`, () => {
    const open = run(repeat(POLICY.openAfterFailures, fail()));
    const closed = nextHealth(open, { kind: 'delivered' }, NOW, POLICY);
    const first = NOW + POLICY.drainIntervalMs;
    expect(closed).toMatchObject({ state: 'closed', drainAt: first, drainBatch: POLICY.drainFirstBatch });
    // Not before its time: the same object, nothing written.
    expect(nextHealth(closed, { kind: 'claim_drain' }, first - 1, POLICY)).toBe(closed);
    const claimed = nextHealth(closed, { kind: 'claim_drain' }, first, POLICY);
    expect(claimed).toMatchObject({ drainAt: first + POLICY.drainIntervalMs, drainBatch: POLICY.drainFirstBatch * POLICY.drainBatchFactor });
    const slowed = nextHealth(claimed, { kind: 'failed', probe: false, status: 429, retryAfterMs: 60_000 }, first + 1, POLICY);
    expect(slowed).toMatchObject({ state: 'closed', drainBatch: POLICY.drainFirstBatch, drainAt: first + 1 + 60_000 });
    expect(nextHealth(claimed, { kind: 'delivered' }, first + 1, POLICY)).toMatchObject({ drainAt: claimed.drainAt, drainBatch: claimed.drainBatch });
    const reopened = run(repeat(POLICY.openAfterFailures, fail()), claimed, first + 2);
    expect(reopened.state).toBe('open');
    expect(reopened.drainAt).toBeUndefined();
    const done = nextHealth(claimed, { kind: 'drained' }, first + 3, POLICY);
    expect(done.drainAt).toBeUndefined();
    expect(nextHealth(done, { kind: 'resume_drain' }, first + 4, POLICY)).toMatchObject({ drainAt: first + 4, drainBatch: POLICY.drainFirstBatch });
    expect(nextHealth(open, { kind: 'resume_drain' }, first + 4, POLICY)).toBe(open);
    let batch = closed;
    for (let k = 0; k < 64; k++) batch = nextHealth(batch, { kind: 'claim_drain' }, batch.drainAt as number, POLICY);
    expect(batch.drainBatch).toBe(POLICY.maxHeldEvents);
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
      fc.constant<HealthSignal>({ kind: 'claim_drain' }),
      fc.constant<HealthSignal>({ kind: 'release_probe' }),
      fc.constant<HealthSignal>({ kind: 'drained' }),
      fc.constant<HealthSignal>({ kind: 'resume_drain' }),
      fc.record({ kind: fc.constant('failed' as const), probe: fc.boolean(), status: fc.constantFrom(200, 410, 429, 500, 502, 503, 504) }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(signal, fc.integer({ min: 0, max: 3_600_000 })), { maxLength: 200 }), (steps) => {
        let health = HEALTHY;
        let at = NOW;
        for (const [s, dt] of steps) {
          at += dt;
          const next = nextHealth(health, s, at, POLICY);
          if (health.state === 'disabled') expect(next.state).toBe('disabled');
          if (health.state === 'open' && s.kind === 'delivered') expect(next.state).toBe('closed');
          if (next.state === 'open') expect(next.nextProbeAt).toBeTypeOf('number');
          if (next.state === 'disabled') expect(admission(next, at)).toEqual({ kind: 'hold' });
          if (next.state === 'closed') expect(admission(next, at)).toEqual({ kind: 'deliver' });
          expect(next.streak).toBeGreaterThanOrEqual(0);
          // Only a closed circuit drains, one batch at a time within the bound.
          if (next.state !== 'closed') expect(next.drainAt).toBeUndefined();
          if (next.drainAt !== undefined) expect(next.drainBatch).toBeGreaterThanOrEqual(1);
          if (next.drainBatch !== undefined) expect(next.drainBatch).toBeLessThanOrEqual(POLICY.maxHeldEvents);
          health = next;
        }
      }),
    );
  });
});
