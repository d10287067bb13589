/**
 * The delivery rules list: the sandbox's DeliveryProfile in spec/sandbox.yaml has exactly the
 * list's fault fields with the same bounds and defaults, every rule cites decisions that exist,
 * and readDeliveryProfile takes what the schema takes (fast-check).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_DELIVERY_PROFILE, DELIVERY_RULES, PROFILE_FAULTS, readDeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';

const sandbox = parse(readFileSync(new URL('../../spec/sandbox.yaml', import.meta.url), 'utf8')) as {
  components: { schemas: { DeliveryProfile: { properties: Record<string, Record<string, unknown>>; additionalProperties: boolean } } };
};
const openapi = parse(readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8')) as { 'x-decisions': { id: string }[] };
const schema = sandbox.components.schemas.DeliveryProfile;

describe('DELIVERY_RULES', () => {
  it('has unique ids, each rule citing decisions of spec/openapi.yaml', () => {
    const ids = DELIVERY_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const decisions = new Set(openapi['x-decisions'].map((d) => d.id));
    for (const rule of DELIVERY_RULES) {
      expect(rule.decisions.length, rule.id).toBeGreaterThan(0);
      for (const id of rule.decisions) expect(decisions.has(id), `${rule.id} cites ${id}`).toBe(true);
    }
  });

  it("spec/sandbox.yaml's DeliveryProfile is the list's faults: same fields, bounds and defaults", () => {
    expect(Object.keys(schema.properties).sort()).toEqual(PROFILE_FAULTS.map((f) => f.field).sort());
    expect(schema.additionalProperties).toBe(false);
    for (const fault of PROFILE_FAULTS) {
      const property = schema.properties[fault.field] as Record<string, unknown>;
      if (fault.kind === 'schedule') {
        expect(property, fault.field).toMatchObject({
          type: 'array',
          minItems: 1,
          maxItems: fault.maxItems,
          items: { type: 'integer', minimum: fault.min, maximum: fault.max },
        });
      } else {
        expect(property, fault.field).toMatchObject({
          type: fault.kind === 'share' ? 'number' : 'integer',
          minimum: fault.min,
          maximum: fault.max,
          default: fault.default,
        });
      }
      expect(property.description, fault.field).toBe(fault.description);
    }
  });

  it('docs/cli.md lists every rule in order, and docs/mock-sandbox-msw.md every profile field with its bounds', () => {
    const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const cli = page.slice(page.indexOf('## webhook grade'), page.indexOf('\n## ', page.indexOf('## webhook grade') + 1));
    const rows = [...cli.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(DELIVERY_RULES.map((r) => r.id));
    const sandboxPage = readFileSync(new URL('../../docs/mock-sandbox-msw.md', import.meta.url), 'utf8');
    for (const fault of PROFILE_FAULTS) {
      const row = sandboxPage.split('\n').find((line) => line.startsWith('| `') && line.includes(`\`${fault.field}\``));
      expect(row, fault.field).toBeDefined();
      expect(row, fault.field).toContain(`${fault.min} to ${fault.max}`);
      expect(row, fault.field).toContain(`\`${fault.rule}\``);
    }
  });

  it('the default profile is today: every event once, in order, on time', () => {
    expect(DEFAULT_DELIVERY_PROFILE).toEqual({ duplicateRate: 0, duplicateDelayMs: 0, concurrentCopies: 1, delayMs: 0, jitterMs: 0, outOfOrderRate: 0 });
    expect(readDeliveryProfile({})).toEqual({ ok: true, profile: DEFAULT_DELIVERY_PROFILE });
  });

  it('readDeliveryProfile takes fields within bounds and refuses anything else with a message naming the field', () => {
    expect(readDeliveryProfile({ duplicateRate: 0.5, retryScheduleMs: [0, 100] })).toMatchObject({
      ok: true,
      profile: { duplicateRate: 0.5, retryScheduleMs: [0, 100], concurrentCopies: 1 },
    });
    expect(readDeliveryProfile({ duplicateRate: 2 })).toEqual({ ok: false, message: 'duplicateRate must be a number from 0 to 1.' });
    expect(readDeliveryProfile({ concurrentCopies: 1.5 })).toEqual({ ok: false, message: 'concurrentCopies must be a whole number from 1 to 10.' });
    expect(readDeliveryProfile({ retryScheduleMs: [] })).toMatchObject({
      ok: false,
      message: expect.stringContaining('retryScheduleMs must list 1 to 10 delays'),
    });
    expect(readDeliveryProfile({ copies: 2 })).toMatchObject({ ok: false, message: expect.stringContaining('"copies" is not a delivery profile field') });
    for (const bad of [null, [], 'x', 3]) expect(readDeliveryProfile(bad).ok).toBe(false);
  });

  it('accepts exactly the values inside every bound (fast-check)', () => {
    const field = fc.constantFrom(...PROFILE_FAULTS.filter((f) => f.kind !== 'schedule'));
    fc.assert(
      fc.property(field, fc.double({ min: -2, max: 120_000, noNaN: true }), (fault, value) => {
        const inside = value >= fault.min && value <= fault.max && (fault.kind === 'share' || Number.isInteger(value));
        expect(readDeliveryProfile({ [fault.field]: value }).ok).toBe(inside);
      }),
    );
  });
});

describe('DELIVERY_RULES, as people read them', () => {
  it('states each rule: a title, the rule and what breaking it costs, as sentences', () => {
    for (const rule of DELIVERY_RULES) {
      expect(rule.title.trim().length, rule.id).toBeGreaterThan(3);
      expect(rule.rule, rule.id).toMatch(/^[A-Z].{20,}\.$/);
      expect(rule.broken, rule.id).toMatch(/^[A-Z].{20,}\.$/);
    }
  });

  it('gives every profile field its rule and a description', () => {
    expect(PROFILE_FAULTS.map((f) => [f.field, f.rule, f.kind])).toEqual([
      ['retryScheduleMs', 'ack', 'schedule'],
      ['duplicateRate', 'duplicate-again', 'share'],
      ['duplicateDelayMs', 'duplicate-after-delay', 'ms'],
      ['concurrentCopies', 'duplicate-concurrent', 'copies'],
      ['delayMs', 'late-event', 'ms'],
      ['jitterMs', 'late-event', 'ms'],
      ['outOfOrderRate', 'out-of-order', 'share'],
    ]);
    for (const fault of PROFILE_FAULTS) expect(fault.description, fault.field).toMatch(/^[A-Z].{20,}\.$/);
    expect(Object.isFrozen(DEFAULT_DELIVERY_PROFILE)).toBe(true);
  });
});

describe('readDeliveryProfile, at its edges', () => {
  it('refuses what is not an object with an example of one', () => {
    for (const bad of [null, [], 'x', 3, undefined, true]) {
      expect(readDeliveryProfile(bad)).toEqual({ ok: false, message: 'A delivery profile is a JSON object, e.g. {"duplicateRate": 0.5}.' });
    }
  });

  it('names an unknown field (at most 64 characters of it) and lists the fields', () => {
    const fields = PROFILE_FAULTS.map((f) => f.field).join(', ');
    expect(readDeliveryProfile({ copies: 2 })).toEqual({ ok: false, message: `"copies" is not a delivery profile field; the fields are ${fields}.` });
    expect(readDeliveryProfile({ ['x'.repeat(100)]: 1 })).toEqual({
      ok: false,
      message: `"${'x'.repeat(64)}" is not a delivery profile field; the fields are ${fields}.`,
    });
  });

  it('refuses values of another type, even those JavaScript compares as numbers', () => {
    for (const value of ['0.5', true, null, [0], {}]) {
      expect(readDeliveryProfile({ duplicateRate: value }), JSON.stringify(value)).toEqual({
        ok: false,
        message: 'duplicateRate must be a number from 0 to 1.',
      });
      expect(readDeliveryProfile({ delayMs: value }), JSON.stringify(value)).toEqual({ ok: false, message: 'delayMs must be a whole number from 0 to 60000.' });
    }
    for (const value of [Number.NaN, Infinity, -Infinity]) expect(readDeliveryProfile({ outOfOrderRate: value }).ok).toBe(false);
  });

  it('takes a retry schedule of 1 to 10 whole delays from 0 to 1 h, and keeps its own copy', () => {
    const schedule = [0, 3_600_000];
    const reading = readDeliveryProfile({ retryScheduleMs: schedule });
    expect(reading).toEqual({ ok: true, profile: { ...DEFAULT_DELIVERY_PROFILE, retryScheduleMs: [0, 3_600_000] } });
    expect(reading.ok && reading.profile.retryScheduleMs).not.toBe(schedule);
    expect(readDeliveryProfile({ retryScheduleMs: [5] }).ok).toBe(true);
    expect(readDeliveryProfile({ retryScheduleMs: Array(10).fill(1) }).ok).toBe(true);
    const message = 'retryScheduleMs must list 1 to 10 delays, each a whole number of ms from 0 to 3600000.';
    for (const bad of [[], Array(11).fill(1), [0, 1.5], [1.5, 0], [-1], [3_600_001], ['5'], 5, { 0: 5, length: 1 }]) {
      expect(readDeliveryProfile({ retryScheduleMs: bad }), JSON.stringify(bad)).toEqual({ ok: false, message });
    }
  });

  it('reads any JSON: a profile it answers reads again as itself, with every default field (fast-check)', () => {
    const fieldNames = PROFILE_FAULTS.map((f) => f.field as string);
    const value = fc.oneof(
      fc.double(),
      fc.integer({ min: -5, max: 100_000 }),
      fc.array(fc.integer({ min: -5, max: 4_000_000 }), { maxLength: 12 }),
      fc.string(),
      fc.constant(null),
    );
    const input = fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), value, { maxKeys: 4 }), fc.jsonValue());
    fc.assert(
      fc.property(input, (json) => {
        const reading = readDeliveryProfile(json);
        if (!reading.ok) {
          expect(reading.message.length).toBeGreaterThan(20);
          return;
        }
        expect(readDeliveryProfile(reading.profile)).toEqual(reading);
        for (const [field, fallback] of Object.entries(DEFAULT_DELIVERY_PROFILE)) {
          expect((reading.profile as Record<string, unknown>)[field]).toEqual(field in (json as object) ? (json as Record<string, unknown>)[field] : fallback);
        }
      }),
    );
  });
});
