/** With --secret: a signed delivery is accepted; a tampered body, another secret and a stale timestamp are refused. */
import type { DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { generateWebhookSecret } from '../listen/run-listen.js';
import { createCliSigner, newWebhookId } from '../webhook-signing.js';
import { failedVerdict } from './delivery-failure.js';
import type { GradeContext, Verdict } from './grade-context.js';

const NO_SECRET = {
  grade: 'n/o',
  evidence: "no --secret given: pass the receiver's signing secret (whsec_…) to check that it accepts signed deliveries and refuses bad ones.",
} as const;

/** How far off the stale delivery's `webhook-timestamp` is (Standard Webhooks receivers allow 5 minutes). */
const STALE_MS = 10 * 60_000;

/** A delivery signed with --secret. */
export async function checkSignatureValid(ctx: GradeContext): Promise<Verdict> {
  if (ctx.settings.secret === undefined) return NO_SECRET;
  const result = await ctx.deliver(0, ctx.newEvent('signed'));
  return (
    failedVerdict('a delivery signed with --secret', [result]) ?? { grade: 'pass', evidence: `a delivery signed with --secret: 200 in ${result.durationMs} ms` }
  );
}

const answer = (r: DeliveryResult) => (r.status !== undefined ? String(r.status) : r.delivered ? '200' : `no answer (${r.reason})`);
const accepted = (r: DeliveryResult) => (r.status === undefined ? r.delivered : r.status >= 200 && r.status < 300);

/** Three bad signatures, sent at once: each must be answered, with anything but 2xx. */
export async function checkSignatureInvalid(ctx: GradeContext): Promise<Verdict> {
  const { secret } = ctx.settings;
  if (secret === undefined) return NO_SECRET;
  const signed = ctx.newEvent('tampered');
  const tampered = { ...signed, session: { id: `${signed.session.id}_changed` } };
  const signOriginal = createCliSigner(secret)(newWebhookId());
  const stale = createWebhookHeaders({ secret, now: () => new Date(Date.now() - STALE_MS) });
  const names = ['a tampered body', 'another secret', 'a timestamp 10 min old'] as const;
  const results = await Promise.all([
    ctx.deliver(0, tampered, { headers: () => signOriginal(JSON.stringify(signed)) }),
    ctx.deliver(0, ctx.newEvent('other_secret'), { headers: createCliSigner(generateWebhookSecret())(newWebhookId()) }),
    ctx.deliver(0, ctx.newEvent('stale'), { headers: (body) => stale(newWebhookId(), body) }),
  ]);
  const cases = names.map((name, i) => [name, results[i] as DeliveryResult] as const);
  const evidence = cases.map(([name, r]) => `${name} ${answer(r)}`).join(', ');
  const taken = cases.filter(([, r]) => accepted(r));
  if (taken.length > 0) {
    return {
      grade: 'fail',
      evidence: `${evidence}: ${taken.map(([name]) => name).join(' and ')} answered 2xx. Anyone who knows the URL can then make the receiver process forged or replayed events: verify the signature over the raw body and refuse (401) one that does not match or is more than 5 minutes off.`,
    };
  }
  const silent = cases.filter(([, r]) => r.status === undefined);
  if (silent.length > 0) {
    return {
      grade: 'n/o',
      evidence: `${evidence}: no refusal observed for ${silent.map(([name]) => name).join(' and ')} (a refusal is an answer, e.g. 401, within the deadline).`,
    };
  }
  return { grade: 'pass', evidence };
}
