/**
 * `webhook grade`: every rule of the delivery rules list (runtime/delivery/delivery-rules.ts),
 * in its order, checked against one receiver (one URL per instance) by delivering events
 * exactly as the service does; each graded pass, fail or n/o (not observable) with its evidence.
 */
import { DELIVERY_RULES, type DeliveryRuleId } from '@session-resume-api/runtime/delivery/delivery-rules';
import { checkAck, checkAckBurst, checkAckHeadroom, checkHttps } from './ack-checks.js';
import { checkDedupe, checkDedupeShared } from './dedupe-checks.js';
import { checkDuplicateAfterDelay, checkDuplicateAgain, checkDuplicateConcurrent, checkDuplicateOtherInstance } from './duplicate-checks.js';
import type { GradeEntry as ReportEntry } from '../grade-report.js';
import { createGradeContext, type GradeContext, type GradeOptions, type Verdict } from './grade-context.js';
import { checkLateEvent, checkOutOfOrder, checkPayloadForms, checkUnknownEvent } from './payload-checks.js';
import { checkSignatureInvalid, checkSignatureValid } from './signature-checks.js';

/** The check of each rule: a rule added to the list without one does not compile. */
const CHECKS: Record<DeliveryRuleId, (ctx: GradeContext) => Promise<Verdict>> = {
  https: checkHttps,
  ack: checkAck,
  'ack-burst': checkAckBurst,
  'duplicate-again': checkDuplicateAgain,
  'duplicate-after-delay': checkDuplicateAfterDelay,
  'duplicate-concurrent': checkDuplicateConcurrent,
  'duplicate-other-instance': checkDuplicateOtherInstance,
  dedupe: checkDedupe,
  'dedupe-shared': checkDedupeShared,
  'payload-forms': checkPayloadForms,
  'unknown-event': checkUnknownEvent,
  'late-event': checkLateEvent,
  'out-of-order': checkOutOfOrder,
  'signature-valid': checkSignatureValid,
  'signature-invalid': checkSignatureInvalid,
  'ack-headroom': checkAckHeadroom,
};

/** The rules that send nothing of their own: they judge the URL or the answers to earlier rules. */
const SENDS_NOTHING: ReadonlySet<DeliveryRuleId> = new Set(['https', 'dedupe', 'dedupe-shared', 'ack-headroom']);

/** Whether `id` names a rule of the list. */
export function isRuleId(id: string): id is DeliveryRuleId {
  return Object.hasOwn(CHECKS, id);
}

/** Most URLs (instances) one run takes. */
export const MAX_GRADE_URLS = 10;

/** One graded rule, as `--json` prints it (one object per line). */
export type GradeEntry = ReportEntry<DeliveryRuleId>;

/**
 * Grades the receiver at `urls` (several: instances sharing one store); calls `onEntry` as each
 * rule is graded. Never throws for what a receiver answers; throws `UsageError` for a bad secret.
 */
export async function runWebhookGrade(
  urls: readonly string[],
  options: GradeOptions = {},
  onEntry: (entry: GradeEntry) => void = () => undefined,
): Promise<GradeEntry[]> {
  const ctx = createGradeContext(urls, options);
  const entries: GradeEntry[] = [];
  const chosen = options.only ? new Set<DeliveryRuleId>(['https', ...options.only]) : undefined;
  for (const { id, title } of DELIVERY_RULES) {
    if (chosen && !chosen.has(id)) continue;
    const verdict = notRun(ctx, id) ?? (await CHECKS[id](ctx));
    ctx.verdicts.set(id, verdict);
    const entry = { rule: id, title, ...verdict };
    entries.push(entry);
    onEntry(entry);
  }
  return entries;
}

/**
 * Why rule `id` is not checked: the service would refuse the URL, or the receiver answered
 * nothing to the deliveries so far (each further one would only wait out its deadline).
 */
function notRun(ctx: GradeContext, id: DeliveryRuleId): Verdict | undefined {
  const https = ctx.verdicts.get('https');
  if (https && https.grade !== 'pass') return { grade: 'n/o', evidence: 'not run: the service would refuse the URL (see https).' };
  if (SENDS_NOTHING.has(id) || ctx.answered || !ctx.unanswered) return undefined;
  const first = [...ctx.verdicts.keys()].find((rule) => !SENDS_NOTHING.has(rule));
  return { grade: 'n/o', evidence: `not run: the receiver answered no delivery so far (see ${first ?? 'above'}).` };
}
