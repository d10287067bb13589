// Generated from spec/openapi.yaml by tools/generate/write-behaviour.ts: do not edit.

/** When a client retries a resume, how it spaces the attempts and what it keeps the same on each: the resume operation's `x-retry-policy`. */
export const RESUME_RETRY_POLICY = Object.freeze({
  decisions: Object.freeze(["resume-retry-policy", "rate-limit", "store-unavailable", "idempotency-key", "not-paused-status"]),
  retryableStatuses: Object.freeze([429, 500, 502, 503, 504]),
  neverRetried: Object.freeze({
    statusClass: "4xx",
    except: Object.freeze([429]),
  }),
  networkFailures: "retry",
  timedOutAttempts: "report",
  outcomes: Object.freeze({
    notPaused: Object.freeze({
      status: 409,
      code: "not_paused",
      marker: "not_paused",
      retried: false,
    }),
  }),
  idempotencyKey: Object.freeze({
    requirement: "recommended",
    header: "Idempotency-Key",
    everyAttempt: true,
    sameOnEveryAttempt: true,
    newPerCall: true,
    scope: "apiKey",
    retentionMs: 86400000,
  }),
  mayHaveApplied: Object.freeze({
    statuses: Object.freeze([500, 502, 504]),
    networkFailures: Object.freeze(["afterRequestSent"]),
    timedOutAttempts: true,
  }),
  withoutIdempotencyKey: Object.freeze({
    retries: "notApplied",
  }),
  retryAfter: Object.freeze({
    statuses: Object.freeze([429, 503]),
    meaning: "floor",
    maxMs: 10000,
    aboveMax: "giveUp",
  }),
  attempts: Object.freeze({
    max: 3,
    attemptTimeoutMs: 10000,
    maxTotalMs: 50000,
  }),
  backoff: Object.freeze({
    shape: "exponential",
    jitter: "full",
    baseMs: 250,
    factor: 2,
    maxMs: 10000,
  }),
});

/** What counts as a delivered session event, when a failed one is sent again, and how receivers dedupe: the session webhook's `x-delivery-policy`. */
export const WEBHOOK_DELIVERY_POLICY = Object.freeze({
  decisions: Object.freeze(["webhook-ack", "webhook-retry", "webhook-outbox", "endpoint-health", "dedupe-window", "manual-redelivery", "webhook-signing"]),
  answerDeadlineMs: 5000,
  deliveredStatuses: Object.freeze([200]),
  followsRedirects: false,
  dedupe: Object.freeze({
    identity: Object.freeze(["event", "session.id", "timestamp"]),
    idHeader: "webhook-id",
    windowMs: 950400000,
    sharedAcrossInstances: true,
  }),
  retry: Object.freeze({
    schedule: "standard-webhooks",
    scheduleMs: Object.freeze([0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 50400000, 72000000, 86400000]),
    sameWebhookId: true,
    identicalBytes: true,
    endsEventStatuses: Object.freeze([410]),
  }),
  retryAfter: Object.freeze({
    statuses: Object.freeze([429, 503]),
    meaning: "floor",
    maxMs: 86400000,
    aboveMax: "waitMax",
  }),
  signature: Object.freeze({
    toleranceMs: 300000,
  }),
  endpointHealth: Object.freeze({
    openAfterFailures: 10,
    openAfterSlowDowns: 3,
    slowDownStatuses: Object.freeze([429, 502, 504]),
    disableStatuses: Object.freeze([410]),
    firstProbeAfterMs: 5000,
    probeIntervalShare: 0.1,
    minProbeIntervalMs: 10000,
    maxProbeIntervalMs: 60000,
    disableAfterMs: 86400000,
    refreshMs: 1000,
    maxHeldEvents: 100000,
    drainFirstWindow: 10,
    drainMaxWindow: 2000,
    drainIntervalMs: 1000,
  }),
});
