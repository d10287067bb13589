/**
 * generated/behaviour.js is the spec's behaviour extensions as they stand: the same values,
 * every object and array frozen, reached through @session-resume-api/runtime/behaviour.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { RESUME_RETRY_POLICY, WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';

type Node = Record<string, unknown>;
const resume = (contract.document.paths['/v1/sessions/{session_id}/resume'] as Node).post as Node;
const webhook = ((contract.document as unknown as { webhooks: Node }).webhooks.sessionEvent as Node).post as Node;

/** Every object and array under `value`, itself included. */
function containers(value: unknown): object[] {
  if (typeof value !== 'object' || value === null) return [];
  return [value, ...Object.values(value).flatMap(containers)];
}

describe('the behaviour module', () => {
  it("holds the resume operation's x-retry-policy and the webhook's x-delivery-policy", () => {
    expect(RESUME_RETRY_POLICY).toEqual(resume['x-retry-policy']);
    expect(WEBHOOK_DELIVERY_POLICY).toEqual(webhook['x-delivery-policy']);
  });

  it('is frozen all the way down', () => {
    const all = [...containers(RESUME_RETRY_POLICY), ...containers(WEBHOOK_DELIVERY_POLICY)];
    expect(all.length).toBeGreaterThan(10);
    for (const node of all) expect(Object.isFrozen(node)).toBe(true);
    expect(() => {
      (RESUME_RETRY_POLICY.retryableStatuses as unknown as number[]).push(400);
    }).toThrow(TypeError);
  });

  it('types each value as its literal, read-only', () => {
    expectTypeOf(RESUME_RETRY_POLICY.attempts.max).toBeNumber();
    expectTypeOf(RESUME_RETRY_POLICY.attempts.max).not.toEqualTypeOf<number>();
    expectTypeOf(WEBHOOK_DELIVERY_POLICY.retryAfter.aboveMax).not.toEqualTypeOf<string>();
    expectTypeOf(RESUME_RETRY_POLICY.retryableStatuses).not.toMatchTypeOf<number[]>();
  });
});
