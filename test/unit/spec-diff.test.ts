/** compareSpecs classifies each kind of change a reviewer cares about (issue #6, spec:diff). */
import { describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { compareSpecs, isMajorBump } from '../../tools/diff/compare-specs.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const RESUME = '/v1/sessions/{session_id}/resume';
const base = (): Doc => structuredClone(contract.document) as Doc;
const changed = (edit: (doc: Doc) => void, from: Doc = base()) => {
  const after = structuredClone(from);
  edit(after);
  return compareSpecs(from, after);
};
const withRequestField = (field: Doc): Doc => {
  const doc = base();
  doc.components.schemas.ResumeRequest.properties = { mode: field };
  return doc;
};

describe('compareSpecs: breaking changes', () => {
  it.each<[string, (doc: Doc) => void, Doc | undefined]>([
    ['removed operation', (d) => delete d.paths[RESUME].post, undefined],
    ['removed response', (d) => delete d.paths[RESUME].post.responses['404'], undefined],
    ['request body made required', (d) => (d.components.requestBodies.ResumeRequest.required = true), undefined],
    [
      'new required request field',
      (d) => {
        d.components.schemas.ResumeRequest.properties = { mode: { type: 'string' } };
        d.components.schemas.ResumeRequest.required = ['mode'];
      },
      undefined,
    ],
    [
      'new required header parameter',
      (d) => d.paths[RESUME].post.parameters.push({ name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' } }),
      undefined,
    ],
    ['narrowed path parameter', (d) => (d.components.parameters.SessionId.schema.maxLength = 10), undefined],
    [
      'narrowed request field type',
      (d) => (d.components.schemas.ResumeRequest.properties.mode.type = 'string'),
      withRequestField({ type: ['string', 'integer'] }),
    ],
    ['narrowed request enum', (d) => (d.components.schemas.ResumeRequest.properties.mode.enum = ['a']), withRequestField({ type: 'string', enum: ['a', 'b'] })],
    ['changed response field type', (d) => (d.components.schemas.ResumeResult.properties.success.type = 'string'), undefined],
    ['removed webhook', (d) => delete d.webhooks.sessionEvent, undefined],
  ])('%s', (_, edit, from) => {
    expect(changed(edit, from).breaking).not.toEqual([]);
  });
});

describe('compareSpecs: non-breaking changes', () => {
  it.each<[string, (doc: Doc) => void]>([
    ['added optional request field', (d) => (d.components.schemas.ResumeRequest.properties = { note: { type: 'string' } })],
    ['new response', (d) => (d.paths[RESUME].post.responses['418'] = { description: 'Teapot.' })],
    ['wording of a description', (d) => (d.info.description = 'Reworded.')],
  ])('%s', (_, edit) => {
    expect(changed(edit).breaking).toEqual([]);
  });

  it('lists a new response as non-breaking', () => {
    const { nonBreaking } = changed((d) => (d.paths[RESUME].post.responses['418'] = { description: 'Teapot.' }));
    expect(nonBreaking.map((c) => c.path)).toContain(`paths/${RESUME}/post/responses/418`);
  });

  it('leaves out edits of the decision record (top-level x- extensions)', () => {
    expect(changed((d) => (d['x-decisions'][0].chosen = 'Reworded.'))).toEqual({ breaking: [], nonBreaking: [], unclassified: [], behaviour: [] });
  });

  it('finds nothing between a document and itself', () => {
    expect(changed(() => undefined)).toEqual({ breaking: [], nonBreaking: [], unclassified: [], behaviour: [] });
  });
});

describe('isMajorBump', () => {
  it.each([
    ['1.0.0', '2.0.0', true],
    ['1.4.2', '1.5.0', false],
    ['1.0.0', '1.0.0', false],
    ['2.0.0', '1.9.0', false],
    ['1.0.0', 'next', false],
  ])('%s → %s is %s', (before, after, expected) => {
    expect(isMajorBump(before, after)).toBe(expected);
  });
});
