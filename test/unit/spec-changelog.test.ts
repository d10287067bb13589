/**
 * The reviewer's changelog (tools/diff/changelog.ts) on a fixture change: a small
 * document before and after a pull request that removes a response, adds an optional request
 * field and a response header, rewords a description and touches the decisions. Breaking
 * changes come first; every change is listed.
 */
import { describe, expect, it } from 'vitest';
import { listChanges, renderChangelogMarkdown } from '../../tools/diff/changelog.js';

const ok = { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } };
const before = {
  openapi: '3.1.0',
  info: { title: 'Fixture', version: '1.4.0' },
  paths: {
    '/v1/things/{id}': {
      post: {
        operationId: 'poke',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: {} } } } },
        responses: { '200': ok, '404': { description: 'Not found.' } },
      },
    },
  },
  'x-decisions': [
    { id: 'kept', topic: 'Kept', chosen: 'A' },
    { id: 'dropped', topic: 'Dropped', chosen: 'B' },
  ],
};

/** The fixture pull request. */
function fixtureChange(): typeof before {
  const after = structuredClone(before) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const op = after.paths['/v1/things/{id}'].post;
  delete op.responses['404'];
  op.requestBody.content['application/json'].schema.properties.note = { type: 'string', maxLength: 100 };
  op.responses['200'].headers = { RateLimit: { schema: { type: 'string', maxLength: 256 } } };
  op.responses['200'].description = 'The thing was poked.';
  after['x-decisions'] = [
    { id: 'kept', topic: 'Kept', chosen: 'A, reworded' },
    { id: 'new-one', topic: 'New | piped', chosen: 'C' },
  ];
  return after;
}

describe('listChanges', () => {
  it('lists every change of the fixture, breaking first, and the decisions added, changed and removed', () => {
    const log = listChanges(before, fixtureChange());
    expect(log.versions).toEqual({ before: '1.4.0', after: '1.4.0' });
    expect(log.entries[0]).toMatchObject({ kind: 'breaking', action: 'Removed', where: 'POST /v1/things/{id} · responses.404' });
    expect(log.entries.filter((e) => e.kind === 'breaking')).toHaveLength(1);
    expect(log.entries.map((e) => e.where)).toEqual(
      expect.arrayContaining([
        'POST /v1/things/{id} · requestBody.content.application/json.schema.properties.note',
        'POST /v1/things/{id} · responses.200.headers',
        'POST /v1/things/{id} · responses.200.description',
      ]),
    );
    const kinds = log.entries.map((e) => e.kind);
    expect([...kinds].sort((a, b) => order(a) - order(b))).toEqual(kinds);
    expect(log.decisions).toEqual([
      { action: 'Changed', id: 'kept', topic: 'Kept', fields: ['chosen'] },
      { action: 'Added', id: 'new-one', topic: 'New | piped', fields: [] },
      { action: 'Removed', id: 'dropped', topic: 'Dropped', fields: [] },
    ]);
  });

  it('lists nothing for an unchanged document', () => {
    expect(listChanges(before, structuredClone(before))).toMatchObject({ entries: [], decisions: [] });
  });
});

const GOLDEN = `## API changes since \`main\`

\`spec/openapi.yaml\` info.version 1.4.0 → 1.4.0: 1 breaking, 2 non-breaking, 1 documentation only.

> **Breaking changes without a new major info.version**: bump the major version or undo them (CI fails).

### Breaking (1)

| | Change | Where |
|---|---|---|
| Removed | Response 404 (description) | \`POST /v1/things/{id} · responses.404\` |

### Non-breaking (2)

| | Change | Where |
|---|---|---|
| Added | property \`note\` in Request Body content (application/json) (type, maxLength) | \`POST /v1/things/{id} · requestBody.content.application/json.schema.properties.note\` |
| Added | annotation (headers) to Response 200 (RateLimit) | \`POST /v1/things/{id} · responses.200.headers\` |

### Documentation only (1)

| | Change | Where |
|---|---|---|
| Changed | annotation (description) of Response 200 | \`POST /v1/things/{id} · responses.200.description\` |

### Decisions in x-decisions (3)

| | Decision | Topic |
|---|---|---|
| Changed | \`kept\` (chosen) | Kept |
| Added | \`new-one\` | New \\| piped |
| Removed | \`dropped\` | Dropped |
`;

const order = (kind: string) => ['breaking', 'non-breaking', 'deprecated', 'annotation', 'unclassified'].indexOf(kind);

describe('renderChangelogMarkdown', () => {
  it('renders the fixture change as Markdown tables, breaking first, with a warning when the major version did not change', () => {
    const markdown = renderChangelogMarkdown(listChanges(before, fixtureChange()), 'main');
    expect(markdown).toBe(GOLDEN);
    const sections = [...markdown.matchAll(/^### (.+) \(\d+\)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Breaking', 'Non-breaking', 'Documentation only', 'Decisions in x-decisions']);
  });

  it('says the breaking changes are allowed after a new major version', () => {
    const after = fixtureChange();
    after.info.version = '2.0.0';
    expect(renderChangelogMarkdown(listChanges(before, after), 'HEAD~1')).toContain('> Breaking changes, allowed: info.version has a new major version.');
  });
});
