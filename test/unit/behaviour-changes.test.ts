/**
 * spec:diff's classification of behaviour changes (tools/diff/behaviour-changes.ts): each rule on
 * a change of the shipped policies, every field of them classified, a field without a rule and a
 * removed field breaking, a longer redelivery horizon breaking receivers.
 */
import { describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { classifyBehaviourChanges, describeBehaviourChange, isPolicyPath } from '../../tools/diff/behaviour-changes.js';
import { listChanges, renderChangelogMarkdown } from '../../tools/diff/changelog.js';
import { compareSpecs } from '../../tools/diff/compare-specs.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;
const shipped = contract.document as Doc;
const retryOf = (d: Doc) => d.paths['/v1/sessions/{session_id}/resume'].post['x-retry-policy'];
const deliveryOf = (d: Doc) => d.webhooks.sessionEvent.post['x-delivery-policy'];

/** The classification of one edit of the shipped spec. */
function classify(edit: (retry: Doc, delivery: Doc) => void) {
  const after = structuredClone(shipped);
  edit(retryOf(after), deliveryOf(after));
  return classifyBehaviourChanges(shipped, after);
}
const verdicts = (edit: (retry: Doc, delivery: Doc) => void) => classify(edit).map((c) => [c.field, c.kind, c.breaks ?? null]);

describe("the issue's two changes", () => {
  it('a dedupe window cut to 10 min breaks receivers', () => {
    const [change] = classify((_r, d) => (d.dedupe.windowMs = 600_000));
    expect(change).toMatchObject({ kind: 'breaking', breaks: 'receivers', field: 'dedupe.windowMs', what: '950400000 (11 d) → 600000 (10 min)' });
    expect(change!.reason).toContain('handled twice');
  });

  it('500, 502 and 504 dropped from retryableStatuses break clients', () => {
    const [change] = classify((r) => (r.retryableStatuses = [429, 503]));
    expect(change).toMatchObject({ kind: 'breaking', breaks: 'clients', field: 'retryableStatuses', action: 'Changed' });
    expect(describeBehaviourChange(change!)).toMatch(
      /^breaking for clients: x-retry-policy retryableStatuses changed \[429, 500, 502, 503, 504\] → \[429, 503\]: a client kept to the previous policy retries this status/,
    );
  });
});

describe('the rules, one change each', () => {
  it.each<[string, (r: Doc, d: Doc) => void, Array<[string, string, string | null]>]>([
    ['a new retryable status', (r) => r.retryableStatuses.push(501), [['retryableStatuses', 'breaking', 'clients']]],
    ['a shorter Retry-After cap for clients', (r) => (r.retryAfter.maxMs = 5000), [['retryAfter.maxMs', 'breaking', 'clients']]],
    ['a longer Retry-After cap for clients', (r) => (r.retryAfter.maxMs = 20_000), [['retryAfter.maxMs', 'non-breaking', null]]],
    ['a key newly required', (r) => (r.idempotencyKey.requirement = 'required'), [['idempotencyKey.requirement', 'breaking', 'clients']]],
    ['a key no longer required', (r) => (r.idempotencyKey.requirement = 'recommended'), []],
    ['fewer attempts', (r) => (r.attempts.max = 2), [['attempts.max', 'breaking', 'clients']]],
    ['more attempts', (r) => (r.attempts.max = 4), [['attempts.max', 'non-breaking', null]]],
    ['a shorter key retention', (r) => (r.idempotencyKey.retentionMs = 3_600_000), [['idempotencyKey.retentionMs', 'breaking', 'clients']]],
    ['a status that may have applied', (r) => r.mayHaveApplied.statuses.push(503), [['mayHaveApplied.statuses', 'breaking', 'clients']]],
    ['a status that applied nothing after all', (r) => (r.mayHaveApplied.statuses = [500]), [['mayHaveApplied.statuses', 'non-breaking', null]]],
    [
      'network failures before sending may have applied',
      (r) => r.mayHaveApplied.networkFailures.push('beforeRequestSent'),
      [['mayHaveApplied.networkFailures', 'breaking', 'clients']],
    ],
    ['a timed-out attempt applied nothing', (r) => (r.mayHaveApplied.timedOutAttempts = false), [['mayHaveApplied.timedOutAttempts', 'non-breaking', null]]],
    ['keyless clients retry nothing', (r) => (r.withoutIdempotencyKey.retries = 'none'), [['withoutIdempotencyKey.retries', 'breaking', 'clients']]],
    ['a lower backoff cap', (r) => (r.backoff.maxMs = 5000), [['backoff.maxMs', 'breaking', 'clients']]],
    ['a higher backoff base', (r) => (r.backoff.baseMs = 500), [['backoff.baseMs', 'non-breaking', null]]],
    ['another not_paused status', (r) => (r.outcomes.notPaused.status = 400), [['outcomes.notPaused.status', 'breaking', 'clients']]],
    ['statuses in another order', (r) => r.retryableStatuses.reverse(), [['retryableStatuses', 'non-breaking', null]]],
    ['a shorter answer deadline', (_r, d) => (d.answerDeadlineMs = 3000), [['answerDeadlineMs', 'breaking', 'receivers']]],
    [
      'a longer answer deadline',
      (_r, d) => (d.answerDeadlineMs = 10_000),
      [
        ['redelivery horizon', 'breaking', 'receivers'],
        ['answerDeadlineMs', 'non-breaking', null],
      ],
    ],
    [
      'a longer schedule',
      (_r, d) => d.retry.scheduleMs.push(86_400_000),
      [
        ['redelivery horizon', 'breaking', 'receivers'],
        ['retry.scheduleMs', 'non-breaking', null],
      ],
    ],
    ['a shorter schedule', (_r, d) => d.retry.scheduleMs.pop(), [['retry.scheduleMs', 'non-breaking', null]]],
    ['a new status that ends an event', (_r, d) => d.retry.endsEventStatuses.push(404), [['retry.endsEventStatuses', 'breaking', 'receivers']]],
    ['a status that no longer counts as delivered', (_r, d) => (d.deliveredStatuses = [202]), [['deliveredStatuses', 'breaking', 'receivers']]],
    ['a longer window', (_r, d) => (d.dedupe.windowMs *= 2), [['dedupe.windowMs', 'non-breaking', null]]],
    ['Retry-After no longer honoured on 503', (_r, d) => (d.retryAfter.statuses = [429]), [['retryAfter.statuses', 'breaking', 'receivers']]],
    ['a shorter delivery Retry-After cap', (_r, d) => (d.retryAfter.maxMs = 3_600_000), [['retryAfter.maxMs', 'breaking', 'receivers']]],
    ['a shorter signature tolerance', (_r, d) => (d.signature.toleranceMs = 60_000), [['signature.toleranceMs', 'breaking', 'receivers']]],
    ['fewer held events', (_r, d) => (d.endpointHealth.maxHeldEvents = 1000), [['endpointHealth.maxHeldEvents', 'breaking', 'receivers']]],
    [
      'a longer probe interval',
      (_r, d) => (d.endpointHealth.maxProbeIntervalMs *= 2),
      [
        ['redelivery horizon', 'breaking', 'receivers'],
        ['endpointHealth.maxProbeIntervalMs', 'non-breaking', null],
      ],
    ],
    ['a faster first probe', (_r, d) => (d.endpointHealth.firstProbeAfterMs = 10_000), [['endpointHealth.firstProbeAfterMs', 'non-breaking', null]]],
    [
      'a new status that disables the endpoint',
      (_r, d) => d.endpointHealth.disableStatuses.push(404),
      [['endpointHealth.disableStatuses', 'breaking', 'receivers']],
    ],
    ['a decision more', (r) => r.decisions.push('webhook-ack'), [['decisions', 'non-breaking', null]]],
  ])('%s', (_name, edit, expected) => {
    expect(verdicts(edit)).toEqual(expected);
  });
});

describe('nothing stays unclassified', () => {
  /** Every leaf of a policy: dotted field and value. */
  const fields = (value: Doc, prefix = ''): Array<[string, unknown]> =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).flatMap(([k, v]) => fields(v, prefix ? `${prefix}.${k}` : k))
      : [[prefix, value]];

  /** Changes of a value in each direction a rule tells apart: up and down, added and removed, flipped, renamed. */
  const variants = (value: unknown): unknown[] => {
    if (Array.isArray(value)) return [[...value, 999], value.slice(1)];
    if (typeof value === 'number') return [value + 1, Math.max(value - 1, 0)];
    if (typeof value === 'boolean') return [!value];
    return [`${String(value)}x`, 'required', 'none'];
  };

  it('every field of the shipped policies has a rule of its own, with a reason for each direction', () => {
    for (const [policy, of] of [
      ['x-retry-policy', retryOf],
      ['x-delivery-policy', deliveryOf],
    ] as const) {
      for (const [field, value] of fields(of(shipped))) {
        for (const changed of variants(value)) {
          if (JSON.stringify(changed) === JSON.stringify(value)) continue;
          const after = structuredClone(shipped);
          const parts = field.split('.');
          const parent = parts.slice(0, -1).reduce((node: Doc, key) => node[key], of(after));
          parent[parts.at(-1)!] = changed;
          const change = classifyBehaviourChanges(shipped, after).find((c) => c.field === field);
          const label = `${policy} ${field} → ${JSON.stringify(changed)}`;
          expect(change, label).toBeDefined();
          expect(change!.reason, label).not.toContain('no rule');
          expect(change!.reason.length, label).toBeGreaterThan(15);
          expect(change!.breaks === undefined, label).toBe(change!.kind === 'non-breaking');
          if (change!.breaks) expect(change!.breaks, label).toBe(policy === 'x-retry-policy' ? 'clients' : 'receivers');
        }
      }
    }
  });

  it('a field without a rule breaks its side until it gets one; a removed field breaks', () => {
    expect(verdicts((r) => (r.surprise = 1))).toEqual([['surprise', 'breaking', 'clients']]);
    const after = structuredClone(shipped);
    retryOf(after).surprise = 1;
    const changed = structuredClone(after);
    retryOf(changed).surprise = 2;
    expect(classifyBehaviourChanges(after, changed)).toMatchObject([
      { field: 'surprise', kind: 'breaking', breaks: 'clients', reason: expect.stringContaining('no rule classifies') },
    ]);
    expect(verdicts((_r, d) => delete d.followsRedirects)).toEqual([['followsRedirects', 'breaking', 'receivers']]);
  });

  it("api-smart-diff's lists leave the policies out; the behaviour list has them", () => {
    const after = structuredClone(shipped);
    deliveryOf(after).dedupe.windowMs = 600_000;
    const comparison = compareSpecs(shipped, after);
    expect([...comparison.breaking, ...comparison.nonBreaking, ...comparison.unclassified]).toEqual([]);
    expect(comparison.behaviour).toHaveLength(1);
    expect(isPolicyPath(['webhooks', 'sessionEvent', 'post', 'x-delivery-policy', 'dedupe'])).toBe(true);
    expect(isPolicyPath(['webhooks', 'sessionEvent', 'post', 'description'])).toBe(false);
  });

  it('the changelog gives each behaviour change its side and reason, and counts it as breaking', () => {
    const after = structuredClone(shipped);
    retryOf(after).retryableStatuses = [429, 503];
    const markdown = renderChangelogMarkdown(listChanges(shipped, after), 'main');
    expect(markdown).toContain('1 behaviour (1 breaking)');
    expect(markdown).toContain('**Breaking changes without a new major info.version**');
    expect(markdown).toMatch(
      /\| Changed \| `x-retry-policy retryableStatuses` \| \[429, 500, 502, 503, 504\] → \[429, 503\] \| \*\*clients\*\* \| a client kept to the previous policy retries/,
    );
  });
});

describe('what each change says', () => {
  it('shows the values, durations also in words, and the action', () => {
    expect(classify((r) => (r.attempts.max = 4))[0]).toMatchObject({
      action: 'Changed',
      what: '3 → 4',
      reason: 'more attempts allowed: a client that sends fewer is within them',
    });
    expect(classify((r) => (r.idempotencyKey.retentionMs = 3_600_000))[0]!.what).toBe('86400000 (1 d) → 3600000 (1 h)');
    expect(classify((_r, d) => delete d.followsRedirects)[0]).toMatchObject({
      action: 'Removed',
      what: 'false',
      reason: expect.stringContaining('finds nothing'),
    });
    expect(classify((r) => (r.idempotencyKey.scope = 'account'))[0]!.what).toBe('"apiKey" → "account"');
    expect(describeBehaviourChange(classify((_r, d) => (d.dedupe.windowMs *= 2))[0]!)).toBe(
      'compatible: x-delivery-policy dedupe.windowMs changed 950400000 (11 d) → 1900800000 (22 d): a longer dedupe window: receivers keep records longer (more storage, docs/bounds.md); nothing handled once before is handled twice',
    );
  });

  it('joins the reasons of a set that gained and lost values, and says when only the order changed', () => {
    const [both] = classify((r) => (r.retryableStatuses = [429, 501, 502, 503, 504]));
    expect(both!.reason).toBe(
      'a client kept to the previous policy reports this status to its caller where the policy now retries it, and graders fail it; a client kept to the previous policy retries this status, which the policy no longer retries (without a key the resume may be applied twice), and graders fail it',
    );
    expect(classify((r) => r.retryableStatuses.reverse())[0]!.reason).toBe('the same values in another order');
    const [mixed] = classify((_r, d) => (d.retryAfter.statuses = [429, 500]));
    expect(mixed).toMatchObject({ kind: 'breaking', reason: 'a Retry-After on this status is no longer honoured: retried sooner than the receiver asked' });
    const [fine] = classify((_r, d) => (d.deliveredStatuses = [200, 201]));
    expect(fine).toMatchObject({ kind: 'non-breaking', reason: 'one more status counts as delivered' });
  });

  it('a requirement added to a policy without one: required breaks, recommended does not; back to recommended is compatible', () => {
    const without = structuredClone(shipped);
    delete retryOf(without).idempotencyKey.requirement;
    const required = structuredClone(without);
    retryOf(required).idempotencyKey.requirement = 'required';
    expect(classifyBehaviourChanges(without, required)).toMatchObject([
      {
        field: 'idempotencyKey.requirement',
        action: 'Added',
        kind: 'breaking',
        breaks: 'clients',
        reason: 'a key is newly required: a client that sends none is now refused',
      },
    ]);
    expect(classifyBehaviourChanges(without, shipped)).toMatchObject([{ field: 'idempotencyKey.requirement', action: 'Added', kind: 'non-breaking' }]);
    const strict = structuredClone(shipped);
    retryOf(strict).idempotencyKey.requirement = 'required';
    expect(classifyBehaviourChanges(strict, shipped)).toMatchObject([
      { kind: 'non-breaking', reason: 'a client may send no key; one that sends a key is unaffected' },
    ]);
    const keyless = structuredClone(shipped);
    delete retryOf(keyless).withoutIdempotencyKey;
    const [added] = classifyBehaviourChanges(keyless, shipped);
    expect(added!.reason).toBe('a new field: the policy now states a rule programs can read; no value a program read before changed');
  });

  it('a longer horizon is one breaking entry of its own; a policy added whole, or one whose horizon cannot be computed, gets none', () => {
    const horizon = classify((_r, d) => d.retry.scheduleMs.push(86_400_000)).find((c) => c.field === 'redelivery horizon');
    expect(horizon).toEqual({
      kind: 'breaking',
      breaks: 'receivers',
      policy: 'x-delivery-policy',
      field: 'redelivery horizon',
      action: 'Changed',
      what: '10 d 6 min 30 s → 11 d 6 min 35 s',
      reason:
        'automatic redeliveries come later than before: a receiver whose dedupe window covered the old horizon sees an event again after its record is gone',
    });
    const none = structuredClone(shipped);
    delete none.webhooks.sessionEvent.post['x-delivery-policy'];
    const added = classifyBehaviourChanges(none, shipped);
    expect(added.length).toBeGreaterThan(20);
    expect(added.every((c) => c.action === 'Added' && c.kind === 'non-breaking')).toBe(true);
    const unreadable = structuredClone(shipped);
    deliveryOf(unreadable).answerDeadlineMs = 'soon';
    expect(classifyBehaviourChanges(unreadable, shipped).map((c) => c.field)).toEqual(['answerDeadlineMs']);
  });

  it('isPolicyPath matches the two policies and what is under them only', () => {
    expect(isPolicyPath(['paths', '/v1/sessions/{session_id}/resume', 'post', 'x-retry-policy', 'attempts', 'max'])).toBe(true);
    expect(isPolicyPath(['paths', '/v1/sessions/{session_id}/resume', 'post'])).toBe(false);
    expect(isPolicyPath(['paths', '/v1/sessions/{session_id}/resume', 'post', 'responses'])).toBe(false);
  });
});

/** Every leaf of a policy, by dotted path, with its value (arrays are values). */
function policyLeaves(value: Doc, prefix = ''): [string, Doc][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, inner]) => policyLeaves(inner, prefix ? `${prefix}.${key}` : key));
}

/** Two edits of one value: one each way (smaller and larger, one item fewer and one more, another word, the other truth). */
function editsOf(value: Doc): Doc[] {
  if (typeof value === 'number') return [value / 2, value * 2 + 1];
  if (typeof value === 'boolean') return [!value];
  if (Array.isArray(value)) return [value.slice(1), [...value, typeof value[0] === 'number' ? 599 : 'another']];
  return [value === 'required' ? 'recommended' : 'required'];
}

function setAt(policy: Doc, path: string, value: Doc): void {
  const keys = path.split('.');
  const parent = keys.slice(0, -1).reduce((node, key) => node[key], policy);
  parent[keys.at(-1)!] = value;
}

describe('every field of both policies, changed either way', () => {
  const fields = [
    ...policyLeaves(retryOf(shipped)).map(([path, value]) => ({ policy: 'retry', path, value })),
    ...policyLeaves(deliveryOf(shipped)).map(([path, value]) => ({ policy: 'delivery', path, value })),
  ];

  it.each(fields)('$policy $path gets a verdict with its reason, never the unclassified one', ({ policy, path, value }) => {
    for (const edited of editsOf(value)) {
      const changes = classify((r, d) => setAt(policy === 'retry' ? r : d, path, edited)).filter((c) => c.field === path);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.reason).toMatch(/\w+ \w+ \w+/);
      expect(changes[0]!.reason).not.toContain('no rule classifies this field');
      // A real change of a set is never described as a reordering of the same values.
      if (Array.isArray(value)) expect(changes[0]!.reason).not.toBe('the same values in another order');
    }
  });
});
