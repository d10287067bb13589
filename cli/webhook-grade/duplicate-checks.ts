/**
 * The duplicate checks: the same event again at once, after a delay, as concurrent copies and
 * at another instance, each answered 200. The answers are kept for the dedupe checks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { newWebhookId } from '../webhook-signing.js';
import { urlName } from './ack-checks.js';
import { failedVerdict, firstFailure } from './delivery-failure.js';
import type { GradeContext, Verdict } from './grade-context.js';

/** Not judged when the event's first delivery failed: that failure is another rule's. */
function firstFailed(first: DeliveryResult): Verdict | undefined {
  const failure = firstFailure([first]);
  return failure ? { grade: 'n/o', evidence: `the first delivery of the event failed, so no duplicate was sent: ${failure.message}` } : undefined;
}

/** The event delivered, then again as soon as it was answered (same webhook-id, same body). */
export async function checkDuplicateAgain(ctx: GradeContext): Promise<Verdict> {
  const event = ctx.newEvent('dup');
  const webhookId = newWebhookId();
  const first = await ctx.deliver(0, event, { webhookId });
  const group = { label: 'delivered again', event, webhookId, results: [first] };
  ctx.groups.sameInstance.push(group);
  ctx.groups.repeated = group;
  const skipped = firstFailed(first);
  if (skipped) return skipped;
  const again = await ctx.deliver(0, event, { webhookId });
  group.results.push(again);
  return failedVerdict('the same event again at once', [again]) ?? { grade: 'pass', evidence: `the same event again at once: 200 in ${again.durationMs} ms` };
}

/** The same event once more after `delayMs`. */
export async function checkDuplicateAfterDelay(ctx: GradeContext): Promise<Verdict> {
  const group = ctx.groups.repeated;
  if (!group || group.results.length < 2) return { grade: 'n/o', evidence: 'the event was not delivered twice at once, so it was not sent later either.' };
  await sleep(ctx.settings.delayMs);
  const later = await ctx.deliver(0, group.event, { webhookId: group.webhookId });
  group.results.push(later);
  group.label = `delivered again at once and after ${ctx.settings.delayMs} ms`;
  const what = `the same event again after ${ctx.settings.delayMs} ms`;
  return failedVerdict(what, [later]) ?? { grade: 'pass', evidence: `${what}: 200 in ${later.durationMs} ms` };
}

/** `copies` copies of a new event at the same moment. */
export async function checkDuplicateConcurrent(ctx: GradeContext): Promise<Verdict> {
  const event = ctx.newEvent('copies');
  const webhookId = newWebhookId();
  const { copies } = ctx.settings;
  const results = await Promise.all(Array.from({ length: copies }, () => ctx.deliver(0, event, { webhookId })));
  ctx.groups.sameInstance.push({ label: `${copies} concurrent copies`, event, webhookId, results });
  const slowest = Math.max(...results.map((r) => r.durationMs));
  return (
    failedVerdict(`${copies} copies of a new event at once`, results) ?? {
      grade: 'pass',
      evidence: `${copies} copies of a new event at once: all 200, the slowest in ${slowest} ms`,
    }
  );
}

/** A new event at the first URL, then the same at every other URL. */
export async function checkDuplicateOtherInstance(ctx: GradeContext): Promise<Verdict> {
  if (ctx.urls.length < 2) {
    return {
      grade: 'n/o',
      evidence:
        'one URL given: give the URL of each instance (webhook grade <url1> <url2> …) to check that a duplicate reaching another instance is answered 200.',
    };
  }
  const event = ctx.newEvent('instances');
  const webhookId = newWebhookId();
  const first = await ctx.deliver(0, event, { webhookId });
  const group = { label: `delivered to each of ${ctx.urls.length} instances`, event, webhookId, results: [first] };
  ctx.groups.otherInstance = group;
  const skipped = firstFailed(first);
  if (skipped) return skipped;
  for (const index of ctx.urls.keys()) {
    if (index === 0) continue;
    const result = await ctx.deliver(index, event, { webhookId });
    group.results.push(result);
    const failed = failedVerdict(`the same event at ${urlName(ctx, index)}`, [result]);
    if (failed) return failed;
  }
  return { grade: 'pass', evidence: `the same event at ${ctx.urls.length - 1} other instance(s): all 200` };
}
