/**
 * spec/.spectral.yaml: extends Spectral's OpenAPI rules and the OWASP ruleset, and every rule
 * it switches off carries a comment naming an x-decisions entry that exists in the spec.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';

const text = readFileSync(fileURLToPath(new URL('../../spec/.spectral.yaml', import.meta.url)), 'utf8');
const ruleset = parseDocument(text);
const decisionIds = new Set((contract.document['x-decisions'] as { id: string }[]).map((d) => d.id));
const cited = (comment: string | null | undefined) => [...(comment ?? '').matchAll(/x-decisions: ([a-z-]+(?:, [a-z-]+)*)/g)].flatMap((m) => m[1]!.split(', '));

describe('spec/.spectral.yaml', () => {
  it('extends spectral:oas and the OWASP API Security ruleset', () => {
    expect(ruleset.toJS().extends).toEqual(['spectral:oas', '@stoplight/spectral-owasp-ruleset']);
  });

  it('every rule switched off names an existing decision in the comment above it', () => {
    const exceptions: Array<{ where: string; comment: string | null | undefined }> = [];
    const rules = ruleset.get('rules') as YAMLMap | undefined;
    // The yaml parser hangs a comment above a collection's first entry on the collection itself.
    for (const [i, pair] of (rules?.items ?? []).entries()) {
      // Rules of our own (the behaviour rules) switch nothing off.
      if (String((pair.value as { value?: unknown } | null)?.value) !== 'off') continue;
      const comment = (pair.key as { commentBefore?: string }).commentBefore ?? (i === 0 ? rules?.commentBefore : undefined);
      exceptions.push({ where: `rules.${String(pair.key)}`, comment });
    }
    const overrides = ruleset.get('overrides');
    expect(isSeq(overrides)).toBe(true);
    if (isSeq(overrides)) {
      for (const [i, item] of overrides.items.entries()) {
        expect(isMap(item)).toBe(true);
        const comment = (item as YAMLMap).commentBefore ?? (i === 0 ? overrides.commentBefore : undefined);
        exceptions.push({ where: JSON.stringify((item as YAMLMap).toJSON().files), comment });
      }
    }
    expect(exceptions.length).toBeGreaterThanOrEqual(7);
    for (const { where, comment } of exceptions) {
      const ids = cited(comment);
      expect(ids.length, `${where} has no x-decisions comment`).toBeGreaterThan(0);
      for (const id of ids) expect(decisionIds.has(id), `${where} cites unknown decision ${id}`).toBe(true);
    }
  });

  it('switches rules off for named locations only, apart from info-contact', () => {
    const js = ruleset.toJS() as { rules?: Record<string, unknown>; overrides: Array<{ files: string[] }> };
    expect(
      Object.entries(js.rules ?? {})
        .filter(([, rule]) => rule === 'off')
        .map(([name]) => name),
    ).toEqual(['info-contact']);
    for (const o of js.overrides) for (const file of o.files) expect(file).toMatch(/^openapi\.yaml#\/.+/);
  });
});
