/**
 * `watch --from`: a HAR document is outside input. Whatever JSON it holds, reading it either
 * gives exchanges or refuses it with a HarError naming the place at fault; a well-formed log
 * keeps every entry's method, path, status, headers and bodies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printableHeader, printableTarget } from '../../cli/watch/exchange.js';
import { HarError, parseHar } from '../../cli/watch/har.js';

const headerArb = fc.record({ name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), value: fc.string({ maxLength: 40 }) });
const entryArb = fc.record({
  startedDateTime: fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
  time: fc.double({ min: 0, max: 1e6, noNaN: true }),
  request: fc.record({
    method: fc.constantFrom('GET', 'POST', 'OPTIONS', 'PUT'),
    url: fc.webUrl({ withQueryParameters: true }),
    headers: fc.array(headerArb, { maxLength: 6 }),
    postData: fc.record({ mimeType: fc.constant('application/json'), text: fc.string({ maxLength: 50 }) }),
  }),
  response: fc.record({
    status: fc.integer({ min: 0, max: 599 }),
    headers: fc.array(headerArb, { maxLength: 6 }),
    content: fc.record({ size: fc.nat(), mimeType: fc.constant('application/json'), text: fc.string({ maxLength: 50 }) }),
  }),
});

describe('parseHar', () => {
  it('any JSON value: exchanges or a HarError, nothing else', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          expect(Array.isArray(parseHar(JSON.stringify(value)))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(HarError);
        }
      }),
    );
  });

  it('any text: exchanges or a HarError', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseHar(text);
        } catch (error) {
          expect(error).toBeInstanceOf(HarError);
        }
      }),
    );
  });

  it('a well-formed log keeps each entry, in start order', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 8 }), (entries) => {
        const exchanges = parseHar(JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }));
        expect(exchanges).toHaveLength(entries.length);
        for (let i = 1; i < exchanges.length; i++) expect(exchanges[i]!.startedAt).toBeGreaterThanOrEqual(exchanges[i - 1]!.startedAt);
        for (const exchange of exchanges) {
          const entry = entries.find(
            (e) =>
              Date.parse(e.startedDateTime) === exchange.startedAt &&
              e.request.postData.text === exchange.requestBody &&
              e.response.content.text === exchange.responseBody,
          )!;
          expect(entry).toBeDefined();
          expect(exchange.status).toBe(entry.response.status === 0 ? undefined : entry.response.status);
          expect([...exchange.requestHeaders.values()].flat().length).toBe(entry.request.headers.length);
        }
      }),
    );
  });

  it('names the place at fault', () => {
    expect(() =>
      parseHar(
        '{"log":{"entries":[{"startedDateTime":"x","time":1,"request":{"method":"GET","url":"/a","headers":[]},"response":{"status":200,"headers":[]}}]}}',
      ),
    ).toThrow(/entries\/0\/startedDateTime "x" is not a date/);
    expect(() => parseHar('{"log":{}}')).toThrow(/\/log must have required property 'entries'/);
  });
});

describe('redaction of what a request carries', () => {
  const token = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/);
  it('a credential in the query or the Authorization header is never printable, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.webPath(),
        fc.constantFrom('access_token', 'token', 'api_key', 'key', 'Access_Token'),
        token,
        fc.webQueryParameters(),
        (path, name, secret, rest) => {
          const target = `${path || '/'}?${rest ? `${rest}&` : ''}${name}=${secret}`;
          expect(printableTarget(target)).not.toContain(secret);
          expect(printableHeader('Authorization', `Bearer ${secret}`)).toBe('Bearer [redacted]');
          expect(printableHeader('webhook-signature', `v1,${secret}`)).toBe('[redacted]');
        },
      ),
    );
  });
});
