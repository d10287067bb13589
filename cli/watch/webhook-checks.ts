/**
 * The rules a webhook delivery is graded by: its shape (a POST of a SessionEvent, well-formed
 * Standard Webhooks headers), its signature with the receiver's secret, its timestamp, and,
 * across attempts, one `webhook-id` per event and attempts no closer than the schedule
 * (x-decisions: webhook-standard-headers, webhook-signing, webhook-retry).
 */
import { timingSafeEqual } from 'node:crypto';
import { nextStep } from '@session-resume-api/runtime/delivery/retry-rules';
import { Webhook } from 'standardwebhooks';
import { parseJson } from './api-checks.js';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { ContractView } from './contract-view.js';
import { header, type Exchange } from './exchange.js';
import type { RecentMap } from './recent-map.js';
import type { Finding } from './watch-rules.js';

/** Attempts seen closer than the schedule by at most this much are timer noise, not drift. */
export const EARLY_SLACK_MS = 50;

/** The last attempt of one event, kept for the next one. */
export interface LastAttempt {
  startedAt: number;
  /** Failed attempts so far (a success resets: what follows is a replay). */
  failures: number;
  status: number | undefined;
  retryAfter: string | undefined;
}

/** What the webhook checks share. */
export interface WebhookCheckContext {
  view: ContractView;
  /** Delay before each attempt of one event, in ms, the first included. */
  scheduleMs: readonly number[];
  /** The receiver's secret: signatures are checked only with it. */
  signer: Webhook | undefined;
  /** webhook-id of each event seen, by identity. */
  idOfEvent: RecentMap<{ webhookId: string; at: number }>;
  /** Last attempt of each webhook-id. */
  lastAttempt: RecentMap<LastAttempt>;
}

/** Grades one delivery. */
export function checkDelivery(exchange: Exchange, ctx: WebhookCheckContext): Finding[] {
  const parsed = parseJson(exchange.requestBody ?? '');
  const body = parsed.ok ? parsed.value : undefined;
  const webhookId = header(exchange.requestHeaders, WEBHOOK_DELIVERY_POLICY.dedupe.idHeader);
  const findings: Finding[] = [checkShape(exchange, body, ctx.view)];
  if (ctx.signer) findings.push(checkSignature(exchange, ctx.signer));
  const timestamp = header(exchange.requestHeaders, 'webhook-timestamp');
  if (timestamp !== undefined && /^\d{1,15}$/.test(timestamp)) {
    const offsetMs = Math.abs(Number(timestamp) * 1000 - exchange.startedAt);
    const toleranceMs = WEBHOOK_DELIVERY_POLICY.signature.toleranceMs;
    findings.push(
      offsetMs <= toleranceMs
        ? { rule: 'webhook-timestamp' }
        : {
            rule: 'webhook-timestamp',
            fault: `webhook-timestamp ${timestamp} is ${Math.round(offsetMs / 1000)} s from the attempt (at most ${toleranceMs / 1000} s)`,
          },
    );
  }
  const identity = identityOf(body, WEBHOOK_DELIVERY_POLICY.dedupe.identity);
  if (webhookId !== undefined && identity !== undefined) findings.push(checkSameId(exchange, webhookId, identity, ctx));
  const spacing = webhookId === undefined ? undefined : checkSpacing(exchange, webhookId, ctx);
  if (spacing) findings.push(spacing);
  return findings;
}

function checkShape(exchange: Exchange, body: unknown, view: ContractView): Finding {
  const operation = view.webhook;
  const faults: string[] = [];
  if (operation && exchange.method !== operation.method) faults.push(`method ${exchange.method}, not ${operation.method}`);
  for (const param of operation?.parameters ?? []) {
    if (param.in !== 'header' || param.name === 'webhook-signature') continue;
    const values = exchange.requestHeaders.get(param.name) ?? [];
    if (values.length > 1) faults.push(`${param.name} sent ${values.length} times`);
    for (const value of values) faults.push(...view.problems(param.schema, value).map((p) => `${param.name} ${JSON.stringify(value)} ${p}`));
  }
  const type = header(exchange.requestHeaders, 'content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) faults.push(`content-type ${JSON.stringify(type)}, not application/json`);
  if (exchange.requestBody !== undefined) {
    if (body === undefined) faults.push('body is not JSON');
    else if (operation?.requestSchema) faults.push(...view.problems(operation.requestSchema, body).map((p) => `body ${p}`));
  }
  return faults.length ? { rule: 'webhook-shape', fault: faults.join('; ') } : { rule: 'webhook-shape' };
}

function checkSignature(exchange: Exchange, signer: Webhook): Finding {
  const id = header(exchange.requestHeaders, 'webhook-id');
  const timestamp = header(exchange.requestHeaders, 'webhook-timestamp');
  const signature = header(exchange.requestHeaders, 'webhook-signature');
  if (!id || !timestamp || !signature)
    return {
      rule: 'webhook-signature',
      fault: `unsigned: ${[!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signature && 'webhook-signature'].filter(Boolean).join(', ')} missing`,
    };
  if (exchange.requestBody === undefined || !/^\d{1,15}$/.test(timestamp))
    return { rule: 'webhook-signature', fault: 'webhook-signature cannot be verified (webhook-timestamp is not Unix seconds)' };
  // Signed again at the delivery's own timestamp: validity is judged apart from clock skew (webhook-timestamp's rule).
  const expected = Buffer.from(signer.sign(id, new Date(Number(timestamp) * 1000), exchange.requestBody));
  const matches = signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { rule: 'webhook-signature' } : { rule: 'webhook-signature', fault: 'webhook-signature does not verify with the secret' };
}

function checkSameId(exchange: Exchange, webhookId: string, identity: string, ctx: WebhookCheckContext): Finding {
  const first = ctx.idOfEvent.get(identity);
  if (!first) {
    ctx.idOfEvent.set(identity, { webhookId, at: exchange.startedAt });
    return { rule: 'webhook-id-stable' };
  }
  return first.webhookId === webhookId
    ? { rule: 'webhook-id-stable' }
    : {
        rule: 'webhook-id-stable',
        fault: `webhook-id ${webhookId}, but an earlier attempt of this event (${new Date(first.at).toISOString()}) carried ${first.webhookId}`,
      };
}

function checkSpacing(exchange: Exchange, webhookId: string, ctx: WebhookCheckContext): Finding | undefined {
  const last = ctx.lastAttempt.get(webhookId);
  const failed = isFailure(exchange.status);
  const failures = last && isFailure(last.status) ? last.failures : 0;
  ctx.lastAttempt.set(webhookId, {
    startedAt: exchange.startedAt,
    failures: failures + (failed ? 1 : 0),
    status: exchange.status,
    retryAfter: header(exchange.responseHeaders, 'retry-after'),
  });
  // A first attempt, or one after a delivered attempt (an operator's replay), has no schedule to keep.
  if (!last || !isFailure(last.status)) return undefined;
  // The delay the delivery engine itself takes after that failure; an event it would have ended
  // (410, the schedule run out) can only come back by an operator's replay: not graded.
  const step = nextStep(ctx.scheduleMs, last.failures, { status: last.status, retryAfter: last.retryAfter }, last.startedAt);
  if (step.kind === 'dead') return undefined;
  const gap = exchange.startedAt - last.startedAt;
  return gap + EARLY_SLACK_MS >= step.delayMs
    ? { rule: 'attempt-spacing' }
    : {
        rule: 'attempt-spacing',
        fault: `attempt ${last.failures + 1} came ${gap} ms after attempt ${last.failures}, the schedule${last.retryAfter === undefined ? '' : ' and Retry-After'} ask at least ${step.delayMs} ms`,
      };
}

/** Whether an attempt failed: no answer, or one the contract does not count as delivered. */
function isFailure(status: number | undefined): boolean {
  return status === undefined || !(WEBHOOK_DELIVERY_POLICY.deliveredStatuses as readonly number[]).includes(status);
}

/** The event's identity: the values at the identity fields, JSON-encoded; undefined when one is missing. */
export function identityOf(body: unknown, fields: readonly string[]): string | undefined {
  const values = fields.map((path) =>
    path.split('.').reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), body),
  );
  return values.some((v) => v === undefined) ? undefined : JSON.stringify(values);
}
