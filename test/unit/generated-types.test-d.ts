/**
 * Type-level checks: the generated types are the ones server and client use. The webhook
 * payload is read from `webhooks["sessionEvent"]`, the resume result from `paths`.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { components, paths, webhooks } from '../../generated/api.js';
import type { ErrorBody, ResumeResult, SessionEvent } from '@session-resume-api/runtime/types';

type ResumeOp = paths['/v1/sessions/{session_id}/resume']['post'];
type WebhookPayload = NonNullable<webhooks['sessionEvent']['post']['requestBody']>['content']['application/json'];

describe('generated/api.d.ts', () => {
  it('types the resume result from paths', () => {
    expectTypeOf<ResumeOp['responses']['200']['content']['application/json']>().toEqualTypeOf<ResumeResult>();
    expectTypeOf<ResumeResult['success']>().toEqualTypeOf<boolean>();
    expectTypeOf<ResumeResult['message']>().toEqualTypeOf<string>();
    expectTypeOf<ResumeOp['parameters']['path']>().toEqualTypeOf<{ session_id: string }>();
  });

  it('types the webhook payload from webhooks["sessionEvent"], open to extra fields', () => {
    expectTypeOf<WebhookPayload>().toEqualTypeOf<SessionEvent>();
    expectTypeOf<SessionEvent['session']['id']>().toEqualTypeOf<string>();
    expectTypeOf<SessionEvent['timestamp']>().toEqualTypeOf<string>();
    expectTypeOf<{ event: 'x'; session: { id: 's'; extra: 1 }; timestamp: 't'; more: true }>().toExtend<SessionEvent>();
    // @ts-expect-error session.id is required
    const missingId: SessionEvent = { event: 'x', session: {}, timestamp: 't' };
    void missingId;
  });

  it('makes every error answer an ErrorBody whose success is the literal false', () => {
    for (const _ of [0]) {
      expectTypeOf<ResumeOp['responses']['404']['content']['application/json']>().toEqualTypeOf<ErrorBody>();
      expectTypeOf<ResumeOp['responses']['409']['content']['application/json']>().toEqualTypeOf<ErrorBody>();
      expectTypeOf<ErrorBody['success']>().toEqualTypeOf<false>();
      expectTypeOf<ErrorBody>().toExtend<Pick<components['schemas']['ResumeResult'], 'success' | 'message'>>();
    }
  });

  it('declares the request body optional', () => {
    expectTypeOf<ResumeOp['requestBody']>().toEqualTypeOf<{ content: { 'application/json': components['schemas']['ResumeRequest'] } } | undefined>();
  });
});
