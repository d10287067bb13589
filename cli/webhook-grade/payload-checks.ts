/** The checks of what a delivery may carry: other payload forms, unknown event names, old timestamps, order. */
import { failedVerdict } from './delivery-failure.js';
import type { GradeContext, Payload, Verdict } from './grade-context.js';

/** Delivers each `[name, body]` to the first URL; fails on the first that gets no 200. */
async function allAnswered(ctx: GradeContext, bodies: readonly (readonly [string, Payload])[], passed: string): Promise<Verdict> {
  for (const [name, body] of bodies) {
    const failed = failedVerdict(name, [await ctx.deliver(0, body)]);
    if (failed) return failed;
  }
  return { grade: 'pass', evidence: passed };
}

/** Nested session.id and flat session_id, with and without data (x-decisions: event-payload-forms). */
export function checkPayloadForms(ctx: GradeContext): Promise<Verdict> {
  const data = { reason: 'webhook grade' };
  const nested = (label: string) => ctx.newEvent(label);
  const flat = (label: string) => {
    const { session, ...rest } = ctx.newEvent(label);
    return { ...rest, session_id: session.id };
  };
  const forms = [
    ['nested session.id with data', { ...nested('nested_data'), data }],
    ['nested session.id without data', nested('nested')],
    ['flat session_id with data', { ...flat('flat_data'), data }],
    ['flat session_id without data', flat('flat')],
  ] as const;
  return allAnswered(ctx, forms, `${forms.length} forms answered 200: ${forms.map(([name]) => name).join(', ')}`);
}

/** An event name no receiver knows. */
export function checkUnknownEvent(ctx: GradeContext): Promise<Verdict> {
  const event = { ...ctx.newEvent('unknown'), event: 'grade.unknown_kind' };
  return allAnswered(ctx, [[`event "${event.event}"`, event]], `event "${event.event}" answered 200`);
}

/** A payload timestamp 23 hours old (a delivery retried for most of a day). */
export function checkLateEvent(ctx: GradeContext): Promise<Verdict> {
  const event = { ...ctx.newEvent('late'), timestamp: new Date(Date.now() - 23 * 3_600_000).toISOString() };
  return allAnswered(ctx, [['an event 23 h old', event]], `an event 23 h old (timestamp ${event.timestamp}) answered 200`);
}

/** Two events of one session, the later one delivered first. */
export function checkOutOfOrder(ctx: GradeContext): Promise<Verdict> {
  const later = ctx.newEvent('order');
  const earlier = { ...later, event: 'session.paused', timestamp: new Date(Date.parse(later.timestamp) - 60_000).toISOString() };
  return allAnswered(
    ctx,
    [
      ['the later event (session.resumed) first', later],
      ['then the earlier one (session.paused, 1 min before)', earlier],
    ],
    'session.resumed, then session.paused of 1 min before: both answered 200',
  );
}
