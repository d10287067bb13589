/**
 * The resume route: Idempotency-Key handling (x-decisions: idempotency-key,
 * resume-unavailable-outcome), the store's atomic transition, the answer, then the event handed off unawaited.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ResumeResult } from '@session-resume-api/runtime/types';
import { errorBody } from '../errors/error-answer.js';
import { HttpError } from '../errors/http-error.js';
import { requestLogger } from './request-log.js';
import type { WebhookDelivery } from '../webhooks/webhook-delivery.js';
import { StoreUnavailableError } from '../errors/store-errors.js';
import type { IdempotentAnswers, SessionStore, StoreResumeOptions } from '../sessions/session-store.js';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { TracedSpan, Tracing } from '@session-resume-api/runtime/tracing';
import { endResumeSpan, resumeSpan } from './resume-span.js';

/** Longest accepted Idempotency-Key, in characters (x-decisions: idempotency-key). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What the handler needs. */
export interface ResumeHandlerDeps {
  store: SessionStore;
  webhookDelivery?: WebhookDelivery | undefined;
  /** The id of the API key that authenticated the request: Idempotency-Keys are scoped to it. */
  keyIdOf: (req: Request) => string;
  /** Where a refused event is reported (the app's logger). */
  logger: Logger;
  /** Sandbox mode: the caller's own world, whose store and event feed replace `store` and `webhookDelivery`. */
  worldOf?: (req: Request) => ResumeWorld | undefined;
  /** A span per resume; without it, the request's trace context still goes with the event. */
  tracing?: Tracing | undefined;
}

/** A sandbox key's world, as the resume route sees it. */
export interface ResumeWorld {
  store: SessionStore;
  emit(event: WebhookMessage): void;
}

// Messages never echo the id: clients find not_paused anywhere in the body text (x-decisions:
// not-paused-status), so an id like "x_not_paused" must not fake one.
const ANSWERS: IdempotentAnswers = {
  resumed: { status: 200, body: { success: true, message: 'Session resumed.' } satisfies ResumeResult },
  not_found: { status: 404, body: errorBody('not_found', 'Session not found.') },
  // Source spec §4 rule 3: the body text contains not_paused (x-decisions: not-paused-status).
  not_paused: { status: 409, body: errorBody('not_paused', 'Session is not paused (not_paused).') },
};

const UNKNOWN_OUTCOME =
  'The session store did not confirm in time: the resume may or may not have been applied. ' + 'Retry with the same Idempotency-Key to get its outcome.';

/**
 * Builds the POST /v1/sessions/{session_id}/resume handler.
 * @example app.post(RESUME_ROUTE, createResumeHandler({ store, webhookDelivery, logger, keyIdOf: (req) => keyIds.get(req) ?? 'anonymous' }));
 */
export function createResumeHandler(deps: ResumeHandlerDeps): RequestHandler {
  const resume = createResume(deps);
  return async (req, res) => {
    const span = resumeSpan(deps.tracing, req);
    let outcome: string | undefined;
    try {
      outcome = await resume(req, res, span);
    } catch (err) {
      endResumeSpan(span, err instanceof HttpError ? err.status : 500, undefined);
      throw err;
    }
    endResumeSpan(span, res.statusCode, outcome);
  };
}

function createResume(deps: ResumeHandlerDeps) {
  const { store, webhookDelivery } = deps;
  // Keys whose first request this instance is still answering (x-decisions: idempotency-key).
  const inFlight = new Set<string>();
  return async (req: Request, res: Response, span: TracedSpan): Promise<string> => {
    const id = String(req.params.session_id);
    const world = deps.worldOf?.(req);
    const key = readIdempotencyKey(req);
    const scope = deps.keyIdOf(req);
    const flightKey = key === undefined ? undefined : JSON.stringify([scope, key]);
    if (flightKey !== undefined && inFlight.has(flightKey)) {
      // Its own code and no not_paused marker: the client must not read it as not_paused.
      throw new HttpError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry in a moment with the same key.', {
        'Retry-After': '1',
      });
    }
    if (flightKey !== undefined) inFlight.add(flightKey);
    let transition;
    try {
      transition = await (world?.store ?? store).resume(id, storeOptions(key === undefined ? undefined : { scope, key, answers: ANSWERS }, span));
    } catch (err) {
      if (err instanceof StoreUnavailableError && err.outcomeUnknown) {
        throw new HttpError(503, 'service_unavailable', UNKNOWN_OUTCOME, { 'Retry-After': '1' }, { cause: err });
      }
      throw err;
    } finally {
      if (flightKey !== undefined) inFlight.delete(flightKey);
    }
    switch (transition.kind) {
      case 'replayed':
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(transition.answer.status).json(transition.answer.body);
        return transition.kind;
      case 'key_reused':
        throw new HttpError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used for another session; send a new key for each resume.');
      case 'resumed':
        res.status(ANSWERS.resumed.status).json(ANSWERS.resumed.body);
        // After the answer and never awaited: delivery must not delay it.
        try {
          if (world) world.emit(transition.event);
          else webhookDelivery?.enqueue(transition.event);
        } catch (err) {
          requestLogger(deps.logger, req, res).error({ err }, 'webhook delivery refused the event');
        }
        return transition.kind;
      case 'not_found':
      case 'not_paused':
        res.status(ANSWERS[transition.kind].status).json(ANSWERS[transition.kind].body);
        return transition.kind;
    }
  };
}

/**
 * The trace context is an own getter: the memory store reads it only when it writes an event, so a
 * 404 or 409 there makes no new trace; an object literal, so a store that copies the options
 * (`{ ...options }`) still gets it.
 */
function storeOptions(idempotency: StoreResumeOptions['idempotency'], span: TracedSpan): StoreResumeOptions {
  return {
    ...(idempotency ? { idempotency } : {}),
    get trace() {
      return span.trace;
    },
  };
}

function readIdempotencyKey(req: Request): string | undefined {
  const joined = req.headers['idempotency-key'];
  if (joined === undefined) return undefined;
  // node:http joins repeated headers into one "a, b"; headersDistinct keeps them apart but copies
  // every header, so it is built only when the value has a comma.
  const values = typeof joined === 'string' && !joined.includes(',') ? [joined] : (req.headersDistinct['idempotency-key'] ?? []);
  if (values.length > 1) throw new HttpError(400, 'bad_request', 'Send one Idempotency-Key header: several make the key ambiguous.');
  const key = values[0] ?? '';
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new HttpError(400, 'bad_request', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long.`);
  }
  return key;
}
