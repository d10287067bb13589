/**
 * Classifies every change of the behaviour policies (x-retry-policy on the resume operation,
 * x-delivery-policy on the session webhook) as breaking for clients, breaking for receivers, or
 * compatible, each with its reason. api-smart-diff leaves extensions unclassified; here every
 * field has a rule, a field without one counts as breaking for its side until it gets one, and a
 * longer redelivery horizon (tools/lint/policy-invariants.ts) is breaking for receivers whatever
 * field made it. docs/spec-review.md has the table.
 */
import { redeliveryHorizon, spellDuration, type DeliveryFields } from '../lint/policy-invariants.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Who a change breaks: clients of the resume operation, or receivers of the webhook. */
export type BehaviourSide = 'clients' | 'receivers';

/** One change of a policy field, classified. */
export interface BehaviourChange {
  kind: 'breaking' | 'non-breaking';
  /** The side a breaking change breaks; none for a compatible one. */
  breaks?: BehaviourSide;
  policy: 'x-retry-policy' | 'x-delivery-policy';
  /** The field, dotted (e.g. `dedupe.windowMs`), or `redelivery horizon` for the computed one. */
  field: string;
  action: 'Added' | 'Removed' | 'Changed';
  /** The values before and after, for people. */
  what: string;
  reason: string;
}

type Verdict = { breaking: boolean; reason: string };
/** A field's rule: the verdict for a value changed from `before` to `after` (either may be absent). */
type Rule = (before: Json | undefined, after: Json | undefined) => Verdict;

const ok = (reason: string): Verdict => ({ breaking: false, reason });
const breaks = (reason: string): Verdict => ({ breaking: true, reason });

/** Any change breaks. */
const anyChange =
  (reason: string): Rule =>
  () =>
    breaks(reason);
/** Any change is compatible. */
const compatible =
  (reason: string): Rule =>
  () =>
    ok(reason);
/** A number: smaller breaks (`lower`), larger is compatible (`higher`), or the other way round. */
const numberRule =
  (breakingWhen: 'lower' | 'higher', breaking: string, fine: string): Rule =>
  (b, a) => {
    const lower = Number(a) < Number(b);
    return lower === (breakingWhen === 'lower') ? breaks(breaking) : ok(fine);
  };
/** A set of values: items added and items removed each break or not. */
const setRule =
  (added: Verdict | undefined, removed: Verdict | undefined, reorder = 'the same values in another order'): Rule =>
  (b, a) => {
    const before = new Set(Array.isArray(b) ? b.map(String) : []);
    const after = new Set(Array.isArray(a) ? a.map(String) : []);
    const plus = [...after].filter((x) => !before.has(x));
    const minus = [...before].filter((x) => !after.has(x));
    const verdicts = [plus.length ? added : undefined, minus.length ? removed : undefined].filter((v): v is Verdict => v !== undefined);
    if (!plus.length && !minus.length) return ok(reorder);
    const breaking = verdicts.filter((v) => v.breaking);
    return breaking.length ? breaks(breaking.map((v) => v.reason).join('; ')) : ok(verdicts.map((v) => v.reason).join('; ') || reorder);
  };
/** An ordered choice: moving towards the end of `order` breaks. */
const strictnessRule =
  (order: readonly string[], breaking: string, fine: string): Rule =>
  (b, a) =>
    order.indexOf(String(a)) > order.indexOf(String(b ?? order[0])) ? breaks(breaking) : ok(fine);

// The rule tables are built per use, not at load: a table read once at load hides its mutants from the unit tests.
/** The rules of x-retry-policy's fields: who breaks is the clients. */
function retryRules(): Record<string, Rule> {
  return {
    decisions: compatible('the list of reasons only'),
    retryableStatuses: setRule(
      breaks('a client kept to the previous policy reports this status to its caller where the policy now retries it, and graders fail it'),
      breaks(
        'a client kept to the previous policy retries this status, which the policy no longer retries (without a key the resume may be applied twice), and graders fail it',
      ),
    ),
    'neverRetried.statusClass': anyChange('what a client never retries changed'),
    'neverRetried.except': setRule(
      breaks('a client kept to the previous policy never retries this status, which the policy now retries'),
      breaks('a client kept to the previous policy retries this status, which the policy now never retries'),
    ),
    networkFailures: anyChange('whether a client retries a request that got no answer changed'),
    timedOutAttempts: anyChange('whether a client retries a timed-out attempt changed'),
    'outcomes.notPaused.status': anyChange('clients recognise not_paused by this status'),
    'outcomes.notPaused.code': anyChange('clients recognise not_paused by this code'),
    'outcomes.notPaused.marker': anyChange('clients recognise not_paused by this body marker'),
    'outcomes.notPaused.retried': anyChange('whether not_paused is retried changed'),
    'idempotencyKey.requirement': strictnessRule(
      ['recommended', 'required'],
      'a key is newly required: a client that sends none is now refused',
      'a client may send no key; one that sends a key is unaffected',
    ),
    'idempotencyKey.header': anyChange('clients send the key under this header name'),
    'idempotencyKey.everyAttempt': anyChange('whether the key goes on every attempt changed'),
    'idempotencyKey.sameOnEveryAttempt': anyChange('whether the key stays the same on every attempt changed'),
    'idempotencyKey.newPerCall': anyChange('whether a call gets a new key changed'),
    'idempotencyKey.scope': anyChange('what a key is scoped to changed'),
    'idempotencyKey.retentionMs': numberRule(
      'lower',
      'the service forgets a key sooner: a retry with the same key later than that resumes again',
      'the service remembers a key longer',
    ),
    'mayHaveApplied.statuses': setRule(
      breaks('a client without a key that retried this status must no longer: the resume may have been applied'),
      ok('a client without a key may now also retry this status; one that does not is unaffected'),
    ),
    'mayHaveApplied.networkFailures': setRule(
      breaks('a client without a key that retried this kind of network failure must no longer'),
      ok('a client without a key may now also retry this kind; one that does not is unaffected'),
    ),
    'mayHaveApplied.timedOutAttempts': strictnessRule(
      ['false', 'true'],
      'a timed-out attempt may now have applied the resume: a client without a key must not retry it',
      'a client without a key may now retry a timed-out attempt',
    ),
    'withoutIdempotencyKey.retries': strictnessRule(
      ['notApplied', 'none'],
      'a client without a key may retry less',
      'a client without a key may retry more; one that retries less is unaffected',
    ),
    'retryAfter.statuses': setRule(
      breaks('a client kept to the previous policy does not wait for a Retry-After on this status, which it must now honour'),
      ok('a client that still honours Retry-After on this status waits longer than needed, never less'),
    ),
    'retryAfter.meaning': anyChange('what a Retry-After means to a client changed'),
    'retryAfter.maxMs': numberRule(
      'lower',
      'a shorter Retry-After cap: a client kept to the previous cap waits for a Retry-After the policy now answers by giving up',
      'a longer cap: a client kept to the previous cap gives up sooner and returns the answer, never sending sooner than asked',
    ),
    'retryAfter.aboveMax': anyChange('what a client does with a Retry-After above the cap changed'),
    'attempts.max': numberRule(
      'lower',
      'fewer attempts: a client kept to the previous policy sends more than the policy now allows',
      'more attempts allowed: a client that sends fewer is within them',
    ),
    'attempts.attemptTimeoutMs': numberRule(
      'lower',
      'a shorter per-attempt deadline: a client kept to the previous policy waits longer than allowed',
      'a longer per-attempt deadline: a client that gives up sooner is within it',
    ),
    'attempts.maxTotalMs': numberRule(
      'lower',
      'a call must end sooner: a client kept to the previous policy may run longer than allowed',
      'a call may take longer: a client that ends sooner is within it',
    ),
    'backoff.shape': anyChange('the shape of the waits between attempts changed'),
    'backoff.jitter': anyChange('the jitter of the waits between attempts changed'),
    'backoff.baseMs': numberRule(
      'lower',
      'a lower bound on the waits: a client kept to the previous policy may wait longer than the bound',
      'a higher bound on the waits: a client kept to the previous bound is within it',
    ),
    'backoff.factor': numberRule(
      'lower',
      'a lower bound on the waits: a client kept to the previous policy may wait longer than the bound',
      'a higher bound on the waits: a client kept to the previous bound is within it',
    ),
    'backoff.maxMs': numberRule(
      'lower',
      'a lower cap on the waits: a client kept to the previous policy may wait longer than the cap',
      'a higher cap on the waits: a client kept to the previous cap is within it',
    ),
  };
}

/** The rules of x-delivery-policy's fields: who breaks is the receivers. */
function deliveryRules(): Record<string, Rule> {
  const timing = 'when the circuit probes or drains: receivers must not rely on a schedule (x-decisions: webhook-retry)';
  return {
    decisions: compatible('the list of reasons only'),
    answerDeadlineMs: numberRule(
      'lower',
      'a shorter answer deadline: an answer that was in time is now a failed delivery',
      'a longer answer deadline: every answer in time before still is',
    ),
    deliveredStatuses: setRule(ok('one more status counts as delivered'), breaks('an answer with this status, delivered before, is now a failed delivery')),
    followsRedirects: anyChange('whether a redirect is followed changed'),
    'dedupe.identity': anyChange('receivers dedupe by another identity'),
    'dedupe.idHeader': anyChange('receivers read the event id from another header'),
    'dedupe.windowMs': numberRule(
      'lower',
      'a shorter dedupe window: a redelivery after the new window but within the old one is handled twice',
      'a longer dedupe window: receivers keep records longer (more storage, docs/bounds.md); nothing handled once before is handled twice',
    ),
    'dedupe.sharedAcrossInstances': anyChange('whether receivers share the dedupe record changed'),
    'retry.schedule': compatible("the schedule's name only; its delays are retry.scheduleMs"),
    'retry.scheduleMs': compatible(
      'receivers must not rely on a schedule or a number of attempts (x-decisions: webhook-retry); a longer redelivery horizon is classified on its own',
    ),
    'retry.sameWebhookId': anyChange('whether every attempt keeps the webhook-id changed'),
    'retry.identicalBytes': anyChange('whether every attempt sends identical bytes changed'),
    'retry.endsEventStatuses': setRule(
      breaks('a new status ends an event: a receiver answering it for a passing fault loses the event to the dead letters'),
      breaks('a receiver answering this status to stop deliveries now gets them retried'),
    ),
    'retryAfter.statuses': setRule(
      ok('a Retry-After on one more status is honoured'),
      breaks('a Retry-After on this status is no longer honoured: retried sooner than the receiver asked'),
    ),
    'retryAfter.meaning': anyChange('what a Retry-After means to the sender changed'),
    'retryAfter.maxMs': numberRule(
      'lower',
      'a shorter Retry-After cap: a receiver is retried sooner than it asked',
      'a longer Retry-After cap: a receiver is retried no sooner than before (a longer horizon is classified on its own)',
    ),
    'retryAfter.aboveMax': anyChange('what the sender does with a Retry-After above the cap changed'),
    'signature.toleranceMs': numberRule(
      'lower',
      'a shorter signature tolerance: a delivery from a sender whose clock is off by between the two is refused',
      'a longer signature tolerance: every delivery accepted before still is',
    ),
    'endpointHealth.openAfterFailures': compatible(timing),
    'endpointHealth.openAfterSlowDowns': compatible(timing),
    'endpointHealth.slowDownStatuses': compatible(timing),
    'endpointHealth.disableStatuses': setRule(
      breaks('a new status disables the endpoint: every delivery stops until an operator enables it'),
      ok('one status fewer disables the endpoint'),
    ),
    'endpointHealth.firstProbeAfterMs': compatible(timing),
    'endpointHealth.probeIntervalShare': compatible(timing),
    'endpointHealth.minProbeIntervalMs': compatible(timing),
    'endpointHealth.maxProbeIntervalMs': compatible(timing),
    'endpointHealth.disableAfterMs': numberRule(
      'lower',
      'an endpoint is disabled sooner: its events wait for an operator after a shorter outage',
      'an endpoint is disabled later (a longer horizon is classified on its own)',
    ),
    'endpointHealth.refreshMs': compatible(timing),
    'endpointHealth.maxHeldEvents': numberRule(
      'lower',
      'fewer events are held while the circuit is open: more go to the dead letters, delivered only when an operator recovers them',
      'more events are held while the circuit is open',
    ),
    'endpointHealth.drainFirstWindow': compatible(timing),
    'endpointHealth.drainMaxWindow': compatible(timing),
    'endpointHealth.drainIntervalMs': compatible(timing),
  };
}

/** The two policies: where each is, whom its changes break, and its rules. */
interface PolicyPlace {
  policy: 'x-retry-policy' | 'x-delivery-policy';
  side: BehaviourSide;
  rules: Record<string, Rule>;
  path: readonly string[];
}

function policies(): PolicyPlace[] {
  return [
    { policy: 'x-retry-policy', side: 'clients', rules: retryRules(), path: ['paths', '/v1/sessions/{session_id}/resume', 'post', 'x-retry-policy'] },
    { policy: 'x-delivery-policy', side: 'receivers', rules: deliveryRules(), path: ['webhooks', 'sessionEvent', 'post', 'x-delivery-policy'] },
  ];
}

/** Whether a path points into a behaviour policy: its changes are classified here, not by api-smart-diff. */
export function isPolicyPath(path: readonly (string | number)[]): boolean {
  return policies().some((p) => p.path.every((key, i) => String(path[i]) === key));
}

function at(document: unknown, path: readonly string[]): Json | undefined {
  let node = document as Json | undefined;
  for (const key of path) node = node !== null && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  return node;
}

/** The policy's values by dotted field; arrays are values, objects are walked. */
function leaves(value: Json | undefined, prefix = ''): Map<string, Json> {
  const out = new Map<string, Json>();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (prefix && value !== undefined) out.set(prefix, value);
    return out;
  }
  for (const [key, inner] of Object.entries(value)) for (const [k, v] of leaves(inner, prefix ? `${prefix}.${key}` : key)) out.set(k, v);
  return out;
}

/** A value for people: durations of `…Ms` fields also in words. */
function show(field: string, value: Json): string {
  const text = Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value);
  return typeof value === 'number' && field.endsWith('Ms') ? `${text} (${spellDuration(value)})` : text;
}

function fieldChange(policy: PolicyPlace, field: string, before: Json | undefined, after: Json | undefined): BehaviourChange {
  const action = before === undefined ? 'Added' : after === undefined ? 'Removed' : 'Changed';
  const rule = policy.rules[field];
  let verdict: Verdict;
  if (!rule) verdict = breaks('no rule classifies this field yet: add one to tools/diff/behaviour-changes.ts');
  else if (action === 'Removed') verdict = breaks('a program that reads this field (the client, the engine, the graders) finds nothing');
  // A new field states a rule where programs can read it; only a key made required breaks anyone by being added.
  else if (action === 'Added' && field !== 'idempotencyKey.requirement')
    verdict = ok('a new field: the policy now states a rule programs can read; no value a program read before changed');
  else verdict = rule(before, after);
  const what = before !== undefined && after !== undefined ? `${show(field, before)} → ${show(field, after)}` : show(field, (after ?? before) as Json);
  return {
    kind: verdict.breaking ? 'breaking' : 'non-breaking',
    ...(verdict.breaking ? { breaks: policy.side } : {}),
    policy: policy.policy,
    field,
    action,
    what,
    reason: verdict.reason,
  };
}

function horizonChange(before: Json | undefined, after: Json | undefined): BehaviourChange[] {
  let old: number;
  let now: number;
  try {
    old = redeliveryHorizon(before as unknown as DeliveryFields).totalMs;
    now = redeliveryHorizon(after as unknown as DeliveryFields).totalMs;
  } catch {
    // A policy without the fields of the horizon: its fields are classified (and lint:spec refuses it).
    return [];
  }
  if (!Number.isFinite(old) || !Number.isFinite(now) || now <= old) return [];
  return [
    {
      kind: 'breaking',
      breaks: 'receivers',
      policy: 'x-delivery-policy',
      field: 'redelivery horizon',
      action: 'Changed',
      what: `${spellDuration(old)} → ${spellDuration(now)}`,
      reason:
        'automatic redeliveries come later than before: a receiver whose dedupe window covered the old horizon sees an event again after its record is gone',
    },
  ];
}

/**
 * Every change of the two policies from `before` to `after` (parsed OpenAPI documents), breaking
 * first, each with the side it breaks and its reason.
 * @example classifyBehaviourChanges(before, after).filter((c) => c.kind === 'breaking')
 */
export function classifyBehaviourChanges(before: unknown, after: unknown): BehaviourChange[] {
  const changes: BehaviourChange[] = [];
  for (const policy of policies()) {
    const old = at(before, policy.path);
    const now = at(after, policy.path);
    const a = leaves(old);
    const b = leaves(now);
    for (const field of new Set([...a.keys(), ...b.keys()])) {
      if (JSON.stringify(a.get(field)) !== JSON.stringify(b.get(field))) changes.push(fieldChange(policy, field, a.get(field), b.get(field)));
    }
    if (policy.policy === 'x-delivery-policy') changes.push(...horizonChange(old, now));
  }
  return changes.sort((x, y) => Number(y.kind === 'breaking') - Number(x.kind === 'breaking'));
}

/** One line for people: "breaking for receivers: x-delivery-policy dedupe.windowMs changed 3600000 (1 h) → 600000 (10 min): reason". */
export function describeBehaviourChange(c: BehaviourChange): string {
  const kind = c.kind === 'breaking' ? `breaking for ${c.breaks}` : 'compatible';
  return `${kind}: ${c.policy} ${c.field} ${c.action.toLowerCase()} ${c.what}: ${c.reason}`;
}
