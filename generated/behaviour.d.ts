// Generated from spec/openapi.yaml by tools/generate/write-behaviour.ts: do not edit.

/** When a client retries a resume, how it spaces the attempts and what it keeps the same on each: the resume operation's `x-retry-policy`. */
export declare const RESUME_RETRY_POLICY: {
  readonly decisions: readonly ["resume-retry-policy", "rate-limit", "store-unavailable", "idempotency-key", "not-paused-status"];
  readonly retryableStatuses: readonly [429, 500, 502, 503, 504];
  readonly neverRetried: {
    readonly statusClass: "4xx";
    readonly except: readonly [429];
  };
  readonly networkFailures: "retry";
  readonly timedOutAttempts: "report";
  readonly outcomes: {
    readonly notPaused: {
      readonly status: 409;
      readonly code: "not_paused";
      readonly marker: "not_paused";
      readonly retried: false;
    };
  };
  readonly idempotencyKey: {
    readonly requirement: "recommended";
    readonly header: "Idempotency-Key";
    readonly everyAttempt: true;
    readonly sameOnEveryAttempt: true;
    readonly newPerCall: true;
    readonly scope: "apiKey";
    readonly retentionMs: 86400000;
  };
  readonly mayHaveApplied: {
    readonly statuses: readonly [500, 502, 504];
    readonly networkFailures: readonly ["afterRequestSent"];
    readonly timedOutAttempts: true;
  };
  readonly withoutIdempotencyKey: {
    readonly retries: "notApplied";
  };
  readonly retryAfter: {
    readonly statuses: readonly [429, 503];
    readonly meaning: "floor";
    readonly maxMs: 10000;
    readonly aboveMax: "giveUp";
  };
  readonly attempts: {
    readonly max: 3;
    readonly attemptTimeoutMs: 10000;
    readonly maxTotalMs: 50000;
  };
  readonly backoff: {
    readonly shape: "exponential";
    readonly jitter: "full";
    readonly baseMs: 250;
    readonly factor: 2;
    readonly maxMs: 10000;
  };
};

/** What counts as a delivered session event, when a failed one is sent again, and how receivers dedupe: the session webhook's `x-delivery-policy`. */
export declare const WEBHOOK_DELIVERY_POLICY: {
  readonly decisions: readonly ["webhook-ack", "webhook-retry", "webhook-outbox", "endpoint-health", "dedupe-window", "manual-redelivery", "webhook-signing"];
  readonly answerDeadlineMs: 5000;
  readonly deliveredStatuses: readonly [200];
  readonly followsRedirects: false;
  readonly dedupe: {
    readonly identity: readonly ["event", "session.id", "timestamp"];
    readonly idHeader: "webhook-id";
    readonly windowMs: 950400000;
    readonly sharedAcrossInstances: true;
  };
  readonly retry: {
    readonly schedule: "standard-webhooks";
    readonly scheduleMs: readonly [0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 50400000, 72000000, 86400000];
    readonly sameWebhookId: true;
    readonly identicalBytes: true;
    readonly endsEventStatuses: readonly [410];
  };
  readonly retryAfter: {
    readonly statuses: readonly [429, 503];
    readonly meaning: "floor";
    readonly maxMs: 86400000;
    readonly aboveMax: "waitMax";
  };
  readonly signature: {
    readonly toleranceMs: 300000;
  };
  readonly endpointHealth: {
    readonly openAfterFailures: 10;
    readonly openAfterSlowDowns: 3;
    readonly slowDownStatuses: readonly [429, 502, 504];
    readonly disableStatuses: readonly [410];
    readonly firstProbeAfterMs: 5000;
    readonly probeIntervalShare: 0.1;
    readonly minProbeIntervalMs: 10000;
    readonly maxProbeIntervalMs: 60000;
    readonly disableAfterMs: 86400000;
    readonly refreshMs: 1000;
    readonly maxHeldEvents: 100000;
    readonly drainFirstWindow: 10;
    readonly drainMaxWindow: 2000;
    readonly drainIntervalMs: 1000;
  };
};
