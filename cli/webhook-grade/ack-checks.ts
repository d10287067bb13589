/** The checks of the URL and of the answer time: `https`, `ack`, `ack-burst`, `ack-headroom`. */
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { resolveWebhookHost } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
import { checkUrlScheme } from '../webhook-check.js';
import { failedVerdict } from './delivery-failure.js';
import type { GradeContext, Verdict } from './grade-context.js';

/** "URL 2" when there are several, "the URL" otherwise: URLs may hold a secret token, so they are not printed. */
export const urlName = (ctx: GradeContext, index: number) => (ctx.urls.length > 1 ? `URL ${index + 1}` : 'the URL');

/** Each URL by the webhook URL rules, as `webhook check` judges it (plain http:// only for a loopback host with --insecure-localhost). */
export async function checkHttps(ctx: GradeContext): Promise<Verdict> {
  const seen: string[] = [];
  for (const [index, url] of ctx.urls.entries()) {
    const scheme = checkUrlScheme(url, ctx.settings.insecureLocalhost);
    const refused = !scheme.ok ? scheme.reason : scheme.refused;
    if (refused) return { grade: 'fail', evidence: `${urlName(ctx, index)}: ${refused}` };
    if (!scheme.ok || !scheme.plain) {
      seen.push('https://');
      continue;
    }
    const resolution = await resolveWebhookHost(new URL(url).hostname, { allowLoopback: true });
    if (!resolution.ok || resolution.addresses.some((a) => a.addressClass !== 'loopback')) {
      const why = resolution.ok ? 'its host is not loopback' : resolution.message;
      return {
        grade: 'fail',
        evidence: `${urlName(ctx, index)}: plain http:// is allowed only for a loopback receiver (${why}); webhook URLs must use https://.`,
      };
    }
    seen.push('http:// on loopback (--insecure-localhost: local testing only)');
  }
  return { grade: 'pass', evidence: [...new Set(seen)].join('; ') };
}

/** One distinct event per URL, answered 200 within the deadline. */
export async function checkAck(ctx: GradeContext): Promise<Verdict> {
  const results = [];
  for (const index of ctx.urls.keys()) results.push(await ctx.deliver(index, ctx.newEvent(`ack${index}`)));
  const failed = failedVerdict('one delivery', results);
  if (failed) return failed;
  const times = results.map((r, index) => `${ctx.urls.length > 1 ? `${urlName(ctx, index)}: ` : ''}200 in ${r.durationMs} ms`);
  return { grade: 'pass', evidence: times.join(', ') };
}

/** The value below which `share` of the sorted `values` lie (nearest rank). */
export function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)] ?? 0;
}

/** `burst` distinct events at once, spread over the URLs: all 200, p99 within the deadline. */
export async function checkAckBurst(ctx: GradeContext): Promise<Verdict> {
  const { burst, timeoutMs } = ctx.settings;
  const events = Array.from({ length: burst }, (_, n) => ctx.newEvent(`burst${n}`));
  const results = await Promise.all(events.map((event, n) => ctx.deliver(n % ctx.urls.length, event)));
  const sorted = results.map((r) => r.durationMs).sort((a, b) => a - b);
  const timing = `p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms (deadline ${timeoutMs} ms)`;
  const failed = failedVerdict(`${burst} concurrent distinct deliveries, ${timing}`, results);
  return failed ?? { grade: 'pass', evidence: `${burst} concurrent distinct deliveries all answered 200, ${timing}` };
}

/**
 * The answer-time headroom of `results` (every delivery of a run) against `deadlineMs`: the
 * median and the slowest answer time; a delivery that timed out fails it, and a run where no
 * delivery was answered is not observable.
 */
export function judgeHeadroom(results: readonly DeliveryResult[], deadlineMs: number): Verdict {
  const timedOut = results.filter((r) => !r.delivered && r.reason === 'timeout').length;
  const times = results
    .filter((r) => r.delivered || r.status !== undefined)
    .map((r) => r.durationMs)
    .sort((a, b) => a - b);
  const timing = times.length > 0 ? `median ${percentile(times, 0.5)} ms, slowest ${times.at(-1)} ms` : undefined;
  if (timedOut > 0) {
    const others = timing === undefined ? '' : `; the others: ${timing}`;
    return { grade: 'fail', evidence: `${timedOut} of ${results.length} deliveries got no answer within ${deadlineMs} ms (no headroom)${others}` };
  }
  if (timing === undefined) return { grade: 'n/o', evidence: 'no delivery was answered, so no answer time was observed (see ack).' };
  const silent = results.length - times.length;
  const unanswered = silent > 0 ? `; ${silent} got no answer (not a timeout)` : '';
  const spare = deadlineMs - (times.at(-1) as number);
  return {
    grade: 'pass',
    evidence: `${timing} over ${times.length} answered ${times.length === 1 ? 'delivery' : 'deliveries'} (deadline ${deadlineMs} ms: ${spare} ms to spare)${unanswered}`,
  };
}

/** Every delivery of the run so far, against the deadline; graded alone, one new event of its own. */
export async function checkAckHeadroom(ctx: GradeContext): Promise<Verdict> {
  if (ctx.results.length === 0) await ctx.deliver(0, ctx.newEvent('headroom'));
  return judgeHeadroom(ctx.results, ctx.settings.timeoutMs);
}
