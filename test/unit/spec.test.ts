/**
 * The spec is consistent with itself: every named example validates against its schema,
 * every decision is complete, and the source's fixed rules are in the document.
 */
import { describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { resolveRef } from '../helpers/spec-walk.js';

const doc = contract.document;

interface MediaType {
  schema?: { $ref?: string };
  examples?: Record<string, { value: unknown }>;
}

/** Every (where, schema name, example name, value) under a content map in the document. */
function collectExamples(): Array<[string, string, unknown]> {
  const found: Array<[string, string, unknown]> = [];
  const visit = (node: unknown, where: string) => {
    if (typeof node !== 'object' || node === null) return;
    const content = (node as { content?: Record<string, MediaType> }).content;
    if (content) {
      for (const [media, mt] of Object.entries(content)) {
        const ref = mt.schema?.$ref;
        for (const [name, ex] of Object.entries(mt.examples ?? {})) {
          found.push([`${where} ${media} example ${name}`, ref ?? '', ex.value]);
        }
      }
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${where}/${key}`);
  };
  visit(doc.paths, '#/paths');
  visit(doc.webhooks, '#/webhooks');
  visit(doc.components, '#/components');
  return found;
}

describe('spec/openapi.yaml', () => {
  const examples = collectExamples();

  it('has named examples for the resume answers and the webhook payload', () => {
    const names = examples.map(([where]) => where);
    for (const example of ['resumed', 'notFound', 'notPaused', 'missingToken', 'rateLimited', 'storeUnavailable', 'sessionResumed']) {
      expect(
        names.some((n) => n.endsWith(`example ${example}`)),
        example,
      ).toBe(true);
    }
  });

  it.each(examples)('%s validates against %s', (_where, ref, value) => {
    expect(ref).toMatch(/^#\/components\/schemas\//);
    const name = ref.split('/').pop() as Parameters<typeof contract.validate>[0];
    const result = contract.validate(name, value);
    expect(result.ok ? '' : result.message).toBe('');
  });

  it('keeps the not_paused marker in the body text of the not_paused example', () => {
    const op = resolveRef(doc, doc.paths['/v1/sessions/{session_id}/resume']?.post) as {
      responses: Record<string, { content: Record<string, MediaType> }>;
    };
    const body = op.responses['409']?.content['application/json']?.examples?.notPaused?.value;
    expect(JSON.stringify(body)).toContain('not_paused');
  });

  it('declares the resume operation as the source writes it: POST /v1/sessions/{session_id}/resume with bearer auth', () => {
    const op = doc.paths['/v1/sessions/{session_id}/resume']?.post as {
      operationId: string;
      security: unknown;
      requestBody: { $ref: string };
    };
    expect(op.operationId).toBe('resumeSession');
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    const body = resolveRef(doc, op.requestBody) as { required: boolean };
    expect(body.required).toBe(false);
    expect(doc.components.securitySchemes).toMatchObject({ bearerAuth: { type: 'http', scheme: 'bearer' } });
  });

  it('records every decision with what the source says, what we chose and how the client tolerates otherwise', () => {
    const decisions = doc['x-decisions'] as Array<Record<string, string>>;
    expect(decisions.length).toBeGreaterThanOrEqual(10);
    const ids = new Set<string>();
    for (const d of decisions) {
      for (const field of ['id', 'topic', 'source', 'chosen', 'client-tolerance']) {
        expect(typeof d[field] === 'string' && d[field].length > 0, `${d.id}.${field}`).toBe(true);
      }
      expect(ids.has(d.id!), `duplicate decision id ${d.id}`).toBe(false);
      ids.add(d.id!);
    }
    // Each decision cited in a description exists.
    const cited = JSON.stringify(doc).match(/x-decisions: ([a-z-]+)/g) ?? [];
    for (const c of cited) expect(ids.has(c.replace('x-decisions: ', '')), c).toBe(true);
  });
});

describe('WebhookUrl schema (source spec §6 rule 1)', () => {
  it.each([
    ['https://hooks.example.org/events', true],
    ['HTTPS://hooks.example.org/events', true],
    ['http://hooks.example.org/events', false],
    ['ftp://hooks.example.org/events', false],
    ['https://', false],
    ['/relative/path', false],
    ['not a url', false],
  ])('%s → valid: %s', (url, valid) => {
    expect(contract.validate('WebhookUrl', url).ok).toBe(valid);
  });
});

describe('SessionEvent schema (source spec §2, §6)', () => {
  it('accepts unknown event kinds, any non-empty timestamp and extra fields', () => {
    const r = contract.validate('SessionEvent', {
      event: 'something.new',
      session: { id: 's1', status: 'x' },
      timestamp: '1763740800',
      extra: [1, 2],
    });
    expect(r.ok).toBe(true);
  });

  it.each([
    [{ session: { id: 's' }, timestamp: 't' }, "must have required property 'event'"],
    [{ event: 'e', session: {}, timestamp: 't' }, "/session must have required property 'id'"],
    [{ event: 'e', session: { id: 's' }, timestamp: '' }, '/timestamp must NOT have fewer than 1 characters'],
    [{ event: 'e', session: { id: 7 }, timestamp: 't' }, '/session/id must be string'],
  ])('rejects %j with a message naming the field', (payload, message) => {
    const r = contract.validate('SessionEvent', payload);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toContain(message);
  });
});

describe('servers', () => {
  it('describe themselves in plain text: the reference shows a server description as written, backticks included', () => {
    const servers = (contract.document as { servers?: { description?: string }[] }).servers ?? [];
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.map((s) => s.description ?? '').filter((d) => d.includes('`'))).toEqual([]);
  });
});
