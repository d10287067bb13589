/**
 * Every Error body the server renders stays within the spec's bounds (x-decisions:
 * text-bounds): a snake_case code of at most 64 characters and a message of at most 1024, even
 * when the underlying error (e.g. a validator listing many problems) says more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_LENGTH, toErrorAnswer } from '../../../server/errors/error-answer.js';
import { HttpError } from '../../../server/errors/http-error.js';
import { contract } from '@session-resume-api/runtime/contract';

describe('toErrorAnswer within the spec bounds', () => {
  it('cuts a validator message listing many problems to 1024 characters, and the body validates', () => {
    const errors = Array.from({ length: 200 }, (_, i) => ({ path: `/body/field${i}`, message: 'must NOT have more than 10 characters' }));
    const answer = toErrorAnswer({ status: 400, errors });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(answer.body.message.endsWith('…')).toBe(true);
    expect(contract.validate('Error', answer.body)).toMatchObject({ ok: true });
  });

  it('property: whatever is thrown, the rendered body matches the Error schema', () => {
    const thrown = fc.oneof(
      fc.record({ status: fc.integer({ min: 100, max: 700 }), message: fc.string({ maxLength: 3000 }) }),
      fc.string({ maxLength: 3000 }).map((m) => new HttpError(400, 'bad_request', m)),
      fc.string({ maxLength: 3000 }).map((m) => new Error(m)),
      fc.anything(),
    );
    fc.assert(
      fc.property(thrown, (err) => {
        const { body } = toErrorAnswer(err);
        return contract.validate('Error', body).ok && body.message.length <= MAX_MESSAGE_LENGTH;
      }),
      { numRuns: 300 },
    );
  });
});
