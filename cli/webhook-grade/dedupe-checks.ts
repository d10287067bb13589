/**
 * Were duplicates processed again? Judged by the processed counts of `--observe` when given,
 * else by the answers (the receiver kit answers `duplicate: true` to a duplicate), else not
 * observable.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import type { DuplicateGroup, GradeContext, Verdict } from './grade-context.js';
import { observeKey } from './observe.js';

const NO_ANSWER_HINT =
  'the answers do not say whether a delivery was a duplicate (the receiver kit answers {"duplicate": true}); serve the processed counts and pass --observe <url> (docs/cli.md, "The --observe format").';

/** `duplicate` of a 200's JSON body, when it is a boolean. */
function duplicateFlag(result: DeliveryResult): boolean | undefined {
  try {
    const flag = (JSON.parse(result.response?.body ?? '') as { duplicate?: unknown }).duplicate;
    return typeof flag === 'boolean' ? flag : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How many times each group's event was processed, by the answers; undefined when they do not
 * say, why not when a copy got no 200 (whether that copy was processed was not observed).
 */
function processedByAnswers(groups: readonly DuplicateGroup[]): number[] | string | undefined {
  const counts: number[] = [];
  for (const group of groups) {
    const missed = group.results.filter((r) => !r.delivered).length;
    if (missed > 0)
      return `${group.label}: ${missed} of ${group.results.length} deliveries got no 200, so the answers do not show whether they were processed (--observe <url> would).`;
    const flags = group.results.map(duplicateFlag);
    if (flags.length === 0 || flags.some((f) => f === undefined)) return undefined;
    counts.push(flags.filter((f) => f === false).length);
  }
  return counts;
}

/** How many times each group's event was processed, by --observe, once every event was counted or `settleMs` passed. */
async function processedByObserve(ctx: GradeContext, groups: readonly DuplicateGroup[]): Promise<number[] | string> {
  const url = ctx.settings.observe as string;
  const keys = groups.map((g) => observeKey(g.event));
  const deadline = Date.now() + ctx.settings.settleMs;
  for (;;) {
    const read = await ctx.readObserved(url, ctx.settings.timeoutMs);
    if (!read.ok) return read.message;
    const counts = keys.map((k) => read.counts.get(k) ?? 0);
    if (counts.every((n) => n > 0) || Date.now() >= deadline) {
      // A second processing may lag the first: one more look after a short wait.
      await sleep(Math.min(500, ctx.settings.settleMs));
      const again = await ctx.readObserved(url, ctx.settings.timeoutMs);
      return again.ok ? keys.map((k) => again.counts.get(k) ?? 0) : again.message;
    }
    await sleep(100);
  }
}

/** The verdict on `groups`: each event processed exactly once. */
export async function judgeProcessing(ctx: GradeContext, groups: readonly DuplicateGroup[], advice: string): Promise<Verdict> {
  const sent = groups.filter((g) => g.results.some((r) => r.delivered));
  if (sent.length === 0) return { grade: 'n/o', evidence: 'no duplicate was answered 200 (see the rules above).' };
  const byObserve = ctx.settings.observe !== undefined;
  const counts = byObserve ? await processedByObserve(ctx, sent) : processedByAnswers(sent);
  if (counts === undefined) return { grade: 'n/o', evidence: NO_ANSWER_HINT };
  if (typeof counts === 'string') return { grade: 'n/o', evidence: counts };
  const source = byObserve ? 'by --observe' : "by the answers' duplicate field";
  const lines = sent.map((g, i) => `${g.label}: ${g.results.filter((r) => r.delivered).length} × 200, processed ${counts[i]} time(s)`);
  const never = counts.findIndex((n) => n === 0);
  if (byObserve && never !== -1) {
    return {
      grade: 'n/o',
      evidence: `--observe never counted ${JSON.stringify(observeKey((sent[never] as DuplicateGroup).event))} within ${ctx.settings.settleMs} ms: does it use the documented key?`,
    };
  }
  const twice = counts.some((n) => n > 1);
  return twice ? { grade: 'fail', evidence: `${lines.join('; ')} (${source}): ${advice}` } : { grade: 'pass', evidence: `${lines.join('; ')} (${source})` };
}

/** Duplicates at one instance not processed again. */
export async function checkDedupe(ctx: GradeContext): Promise<Verdict> {
  return judgeProcessing(
    ctx,
    ctx.groups.sameInstance,
    'a duplicate was processed again. Deliveries are at least once: dedupe by event, session id and timestamp (or webhook-id).',
  );
}

/** A duplicate at another instance not processed again: judged only when one instance dedupes. */
export async function checkDedupeShared(ctx: GradeContext): Promise<Verdict> {
  if (ctx.urls.length < 2 || !ctx.groups.otherInstance) {
    return { grade: 'n/o', evidence: 'one URL given: give the URL of each instance to check that they share their record of processed events.' };
  }
  if (ctx.verdicts.get('dedupe')?.grade === 'fail') {
    return { grade: 'n/o', evidence: 'not judged: duplicates are processed again at one instance already (see dedupe).' };
  }
  return judgeProcessing(
    ctx,
    [ctx.groups.otherInstance],
    'another instance processed the duplicate again: keep the record of processed events in storage every instance shares (e.g. Redis), for about an hour.',
  );
}
