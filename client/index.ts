/**
 * Package session-resume-api, entry `./client`: the typed client. Browser-safe: nothing reachable
 * from here imports a Node built-in (test/unit/boundaries.test.ts); never imports server/.
 */
export { createSessionsClient } from './sessions-client.js';
export type { ResumeOptions, SessionsClient, SessionsClientOptions } from './sessions-client.js';
export type { FailedResumeOutcome, ResumeOutcome, ResumeOutcomeBase, ResumeOutcomeKind } from './outcome.js';
export { parseRateLimit } from './rate-limit.js';
export type { RateLimitInfo } from './rate-limit.js';
export { SessionsClientError } from './errors.js';
/** Thrown by every factory of this package for an option it cannot work with (a TypeError). */
export { OptionsError } from '@session-resume-api/runtime/options-error';
export type { OptionsErrorOptions } from '@session-resume-api/runtime/options-error';
export type { SessionsClientErrorCode } from './errors.js';
export type { FetchLike } from './retry.js';
export { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
export type { AddressClass, WebhookUrlCheck, WebhookUrlOptions, WebhookUrlProblem } from '@session-resume-api/runtime/webhook-url';
export type { ApiComponents, ApiOperations, ApiPaths, ErrorBody, ResumeResult } from '@session-resume-api/runtime/types';
