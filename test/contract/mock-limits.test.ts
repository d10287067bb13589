/**
 * What docs/mock-sandbox-msw.md says about the Prism mock, checked against Prism itself: Retry-After is the
 * spec's example value (not an invented 0), and the mock limits listed there are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '@session-resume-api/runtime/contract';
import { resolveRef } from '@session-resume-api/runtime/resolve-ref';
import { startPrism, type PrismServer } from '../helpers/prism.js';

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
}, 60_000);
afterAll(async () => {
  await prism?.stop();
});

const resume = (headers: Record<string, string>, body?: string) =>
  fetch(`${prism.url}/v1/sessions/sess_paused_1/resume`, {
    method: 'POST',
    headers: { authorization: 'Bearer mock-key', ...headers },
    ...(body === undefined ? {} : { body }),
  });

/** The first example value of a header of a response in the document, resolving one $ref. */
function headerExample(status: string, name: string): string {
  type Node = { $ref?: string; headers?: Record<string, Node>; examples?: Record<string, { value: unknown }> };
  const doc = contract.document;
  const deref = (node: Node | undefined) => (node?.$ref ? (resolveRef(doc, node) as Node) : node);
  const operation = doc.paths['/v1/sessions/{session_id}/resume']?.post as { responses: Record<string, Node> };
  const header = deref(deref(operation.responses[status])?.headers?.[name]);
  return String(Object.values(header?.examples ?? {})[0]?.value);
}

describe('Prism mock', () => {
  it.each(['429', '503'])('answers %s with the Retry-After the spec gives as example, never an invented 0', async (code) => {
    const res = await resume({ prefer: `code=${code}` });
    expect(res.status).toBe(Number(code));
    const expected = headerExample(code, 'Retry-After');
    expect(expected).not.toBe('0');
    expect(res.headers.get('retry-after')).toBe(expected);
  });

  it('has the limits docs/mock-sandbox-msw.md lists', async () => {
    const badJson = await resume({ 'content-type': 'application/json' }, '{bad');
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: { code: 'invalid_json', message: 'Invalid JSON' } });
    expect((await resume({ prefer: 'example=rateLimited' })).status).toBe(404);
    expect((await resume({ prefer: 'code=404, example=noSuchExample' })).status).toBe(500);
  });
});
