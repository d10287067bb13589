/**
 * Type-level checks of the client: typed paths on `raw`, required path parameters, narrowing
 * before reading data, and an exhaustive switch over the outcome kinds.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { createSessionsClient, type ResumeOutcome, type ResumeOutcomeKind, type ResumeResult, type SessionsClient } from '../../client/index.js';

declare const client: SessionsClient;

describe('client types', () => {
  it('creates a client from baseUrl and apiKey, both required', () => {
    expectTypeOf(createSessionsClient({ baseUrl: 'https://x', apiKey: 'k' })).toEqualTypeOf<SessionsClient>();
    // @ts-expect-error apiKey is required
    createSessionsClient({ baseUrl: 'https://x' });
    // @ts-expect-error timeoutMs is a number of milliseconds
    createSessionsClient({ baseUrl: 'https://x', apiKey: 'k', timeoutMs: '5s' });
  });

  it('resolves resume to the outcome union', () => {
    expectTypeOf(client.resume('s')).resolves.toEqualTypeOf<ResumeOutcome>();
    expectTypeOf<ResumeOutcomeKind>().toEqualTypeOf<'resumed' | 'not_paused' | 'not_found' | 'unauthorized' | 'rate_limited' | 'unexpected'>();
    // @ts-expect-error the session id is a string
    void client.resume(42);
  });

  it('makes the caller narrow on kind before reading the result', async () => {
    const outcome = await client.resume('s');
    // @ts-expect-error result exists only on kind 'resumed'
    void outcome.result;
    if (outcome.kind === 'resumed') expectTypeOf(outcome.result).toEqualTypeOf<ResumeResult>();
    if (outcome.kind === 'rate_limited') expectTypeOf(outcome.retryAfterSeconds).toEqualTypeOf<number | undefined>();
    // @ts-expect-error retryAfterSeconds exists only on kind 'rate_limited'
    void outcome.retryAfterSeconds;
  });

  it('makes a switch on kind exhaustive', async () => {
    const describe = (o: ResumeOutcome): string => {
      switch (o.kind) {
        case 'resumed':
          return o.result.message;
        case 'not_paused':
        case 'not_found':
        case 'unauthorized':
        case 'rate_limited':
        case 'unexpected':
          return o.message;
        default: {
          const never: never = o;
          return never;
        }
      }
    };
    // @ts-expect-error a switch that forgets a kind does not return on every path
    const incomplete = (o: ResumeOutcome): string => {
      switch (o.kind) {
        case 'resumed':
          return 'r';
        case 'not_paused':
          return 'n';
      }
    };
    void describe;
    void incomplete;
  });

  it('types raw calls from the generated paths', async () => {
    const { data, error } = await client.raw.POST('/v1/sessions/{session_id}/resume', {
      params: { path: { session_id: 's' } },
    });
    // @ts-expect-error data may be undefined until the error branch is excluded
    void data.success;
    if (data) expectTypeOf(data.success).toEqualTypeOf<boolean>();
    if (error) expectTypeOf(error.success).toEqualTypeOf<false>();

    // @ts-expect-error an unknown path
    void client.raw.POST('/v1/sessions/{session_id}/pause', { params: { path: { session_id: 's' } } });
    // @ts-expect-error resume is a POST, not a GET
    void client.raw.GET('/v1/sessions/{session_id}/resume', { params: { path: { session_id: 's' } } });
    // @ts-expect-error session_id is required
    void client.raw.POST('/v1/sessions/{session_id}/resume', { params: { path: {} } });
    // @ts-expect-error params are required
    void client.raw.POST('/v1/sessions/{session_id}/resume');
  });
});
