/**
 * The one webhook delivery engine (x-decisions: webhook-outbox, webhook-retry, webhook-ack), whatever
 * the queue: each attempt is one `deliverEvent` with the Standard Webhooks headers, recorded; a
 * failure's follow-up is `nextStep`; an event out of attempts is dead-lettered, replayed with the same
 * webhook-id. Logging and closing live here; the queue stores and schedules.
 */
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { contract } from '@session-resume-api/runtime/contract';
import { createDeliveryAgents, type DeliveryAgents } from '@session-resume-api/runtime/delivery/delivery-agents';
import { deliverEvent, DELIVERY_TIMEOUT_MS, type DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import type { WebhookLookup } from '@session-resume-api/runtime/delivery/resolve-webhook-host';
import { nextStep, STANDARD_WEBHOOKS_SCHEDULE_MS } from '@session-resume-api/runtime/delivery/retry-rules';
import { createWebhookHeaders } from '@session-resume-api/runtime/delivery/webhook-headers';
import { checkInteger, checkOption, OptionsError } from '@session-resume-api/runtime/options-error';
import { cappedRetryAfterMs, retryAfterMs } from '@session-resume-api/runtime/retry-after';
import { checkTraceContext, newTraceContext, traceHeaders } from '@session-resume-api/runtime/trace-context';
import type { OpenTelemetryApi } from '@session-resume-api/runtime/tracing';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import type { WebhookMessage } from '../core/webhook-message.js';
import { adviceFor } from './answer-advice.js';
import type { AttemptHandler, AttemptOutcome, DeadEvent, DeliveryQueue, QueuedEvent } from './delivery-queue.js';
import { RESPONSE_KEEP_BYTES, withTimeout } from './delivery-queue.js';
import type { AttemptResult, DeliveryInspector, DeliveryObserver } from './delivery-types.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import { attemptSpan, endAttemptSpan } from './delivery-spans.js';
import { serverTracing } from '../core/server-tracing.js';
import type { EndpointCircuit, EndpointStatus } from './endpoint-circuit.js';
import type { EndpointHealth } from './endpoint-circuit-rules.js';
import { guardAttempts } from './endpoint-guard.js';
import { recoverByTime, type RecoverOptions, type RecoverResult } from './recover-by-time.js';

/** Where and how attempts go; needed only by an engine that delivers. */
export interface DeliveryTarget {
  /** The receiver's https:// URL. */
  url: string;
  /**
   * Allow loopback and private receivers, for local testing only; logged as a warning.
   * @defaultValue `false`
   */
  allowPrivate?: boolean;
  /**
   * Allow plain http:// and unverified TLS to loopback receivers only.
   * @defaultValue `false`
   */
  insecureLocalhost?: boolean;
  /**
   * CA certificate(s) to trust instead of the system roots (PEM).
   * @defaultValue none: the system roots
   */
  ca?: string | Buffer;
  /**
   * Resolver returning every address of a host.
   * @defaultValue the system's
   */
  lookup?: WebhookLookup;
  /**
   * Standard Webhooks signing secret (`whsec_` + base64), or several (rotation: each signs).
   * @defaultValue none: unsigned (`webhook-id` and `webhook-timestamp` still sent)
   */
  secret?: string | readonly string[] | undefined;
  /**
   * Deadline of one attempt in ms.
   * @defaultValue {@link DELIVERY_TIMEOUT_MS} (5000)
   */
  timeoutMs?: number;
  /**
   * Reuse connections between attempts, kept per checked address; closed with the engine.
   * @defaultValue `true`
   */
  keepAlive?: boolean;
}

/** The engine's options both `createMemoryDelivery` and `createRedisDelivery` take as they are. */
export interface DeliveryEngineSettings {
  /**
   * Delay before each attempt in ms, the first included; its length is the number of attempts.
   * @defaultValue {@link STANDARD_WEBHOOKS_SCHEDULE_MS} (the Standard Webhooks example)
   */
  schedule?: readonly number[];
  /**
   * Hooks for metrics, called after every attempt and delivery.
   * @defaultValue none: no hooks
   */
  observer?: DeliveryObserver;
  /**
   * `@opentelemetry/api` (optional peer): a client span per attempt, child of the event's trace;
   * the trace headers are sent either way.
   * @defaultValue none: no spans
   */
  opentelemetry?: OpenTelemetryApi;
}

/** Options of `createDeliveryEngine`, checked at creation. */
export interface DeliveryEngineOptions extends DeliveryEngineSettings {
  queue: DeliveryQueue;
  /**
   * Deliver from this instance.
   * @defaultValue none: the engine only takes events and reports
   */
  target?: DeliveryTarget;
  /**
   * Where attempts are logged.
   * @defaultValue a pino logger named `webhook-delivery`
   */
  logger?: Logger;
  /**
   * The endpoint's circuit: pauses attempts to a failing endpoint (x-decisions: endpoint-health).
   * @defaultValue none: every attempt goes
   */
  circuit?: EndpointCircuit;
}

/** The engine: takes events, delivers them, and answers the operator's questions. */
export interface DeliveryEngine extends WebhookDelivery, DeliveryInspector {
  /** Also takes a bare `SessionEvent`, which gets a fresh webhook-id. */
  enqueue(event: WebhookMessage | SessionEvent): void;
  /** Events that exhausted the schedule (or got 410), oldest first. */
  listDead(): Promise<DeadEvent[]>;
  /** Puts one dead event back with a fresh schedule and the same webhook-id; false when there is none with that id. */
  replay(id: string): Promise<boolean>;
  /** Replays every dead event; returns how many. */
  replayAll(): Promise<number>;
  /** Lists, or puts back to be delivered now, the events whose last attempt failed in a window of time. */
  recover(options: RecoverOptions): Promise<RecoverResult>;
  /** The endpoint's health, shared by every instance, with the events held; undefined without a circuit. */
  endpoint(): Promise<EndpointStatus | undefined>;
  /** Closes the endpoint's circuit (re-enables a disabled endpoint); undefined without a circuit. */
  enableEndpoint(): Promise<EndpointHealth | undefined>;
}

/** Default time `close` waits, in ms (WebhookDelivery contract). */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Creates the engine over `queue`; with `target` it starts delivering at once.
 * @example const engine = createDeliveryEngine({ queue: createMemoryDeliveryQueue({ target: 'https://hooks.example.com' }), target: { url: 'https://hooks.example.com/in' } });
 */
export function createDeliveryEngine(options: DeliveryEngineOptions): DeliveryEngine {
  const { queue } = options;
  const schedule = checkSchedule(options.schedule ?? STANDARD_WEBHOOKS_SCHEDULE_MS);
  const logger = options.logger ?? pino({ name: 'webhook-delivery' });
  const agents = options.target && (options.target.keepAlive ?? true) ? createDeliveryAgents() : undefined;
  const { circuit } = options;
  const handler =
    options.target && createAttemptHandler(options.target, { schedule, logger, observer: options.observer, agents, opentelemetry: options.opentelemetry });
  if (handler) queue.start(circuit ? guardAttempts(handler, circuit) : handler);
  const pending = new Set<Promise<void>>();
  let closing = false;
  let closed: Promise<void> | undefined;

  return {
    enqueue(given) {
      const event = toWebhookMessage(given);
      const fields = identity(event?.payload);
      if (closing) {
        // Durable: the intent stays and the relay of any instance takes the event.
        if (queue.durable) logger.warn({ ...fields, webhookId: event?.id }, 'webhook event enqueued while closing; left to the relay');
        else logger.error(fields, 'webhook event enqueued after close; dropped');
        return;
      }
      const copy = snapshot(event, logger);
      if (!copy) return;
      const task = queue
        .add(copy, schedule[0] ?? 0)
        .catch((err: unknown) =>
          queue.durable
            ? logger.warn({ ...fields, webhookId: copy.id, err: (err as Error).message }, 'enqueue failed; the relay will retry it')
            : logger.error({ ...fields, webhookId: copy.id, err: (err as Error).message }, 'webhook event not queued; dropped'),
        )
        .finally(() => pending.delete(task));
      pending.add(task);
    },
    close({ timeoutMs = CLOSE_TIMEOUT_MS } = {}) {
      closed ??= (async () => {
        closing = true;
        await withTimeout(Promise.allSettled([...pending]), timeoutMs);
        await queue.close(timeoutMs);
        agents?.destroy();
        circuit?.close();
        logger.info('webhook delivery closed');
      })();
      return closed;
    },
    show: (id) => queue.show(id),
    list: (listOptions) => queue.list(listOptions),
    stats: () => queue.stats(),
    listDead: () => queue.listDead(),
    replay: (id) => queue.replay(id, schedule[0] ?? 0),
    replayAll: () => replayAllDead(queue, schedule[0] ?? 0),
    recover: (recoverOptions) => recoverByTime(queue, recoverOptions, schedule[0] ?? 0),
    endpoint: async () => circuit?.read(),
    enableEndpoint: async () => circuit?.enable(),
  };
}

/** Replays every dead event, each due after `delayMs`; resolves to how many went back to the queue. */
async function replayAllDead(queue: DeliveryQueue, delayMs: number): Promise<number> {
  let count = 0;
  for (const dead of await queue.listDead()) if (await queue.replay(dead.id, delayMs)) count++;
  return count;
}

/** What the attempts share besides the target. */
interface AttemptSetting {
  schedule: readonly number[];
  logger: Logger;
  observer: DeliveryObserver | undefined;
  agents: DeliveryAgents | undefined;
  opentelemetry: OpenTelemetryApi | undefined;
}

/** The attempt every queue runs: deliver (with the event's trace headers), record, log, observe, decide. */
function createAttemptHandler(target: DeliveryTarget, { schedule, logger, observer, agents, opentelemetry }: AttemptSetting): AttemptHandler {
  const check = validateWebhookUrl(target.url, { allowPrivate: target.allowPrivate, allowLoopbackHttp: target.insecureLocalhost });
  if (!check.ok) throw new OptionsError(`Invalid webhook URL: ${check.reason}`, { option: 'url' });
  const headers = createWebhookHeaders({ secret: target.secret });
  const timeoutMs = target.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  checkInteger('createDeliveryEngine: timeoutMs', timeoutMs, { min: 1 });
  // Logs name the origin only: the path may carry the receiver's secret token (x-decisions: webhook-signing).
  const log = logger.child({ webhook: check.url.origin });
  if (target.allowPrivate) {
    log.warn(
      'allowPrivate is ON: webhooks may go to loopback and private-network addresses. For local testing only; ' +
        'never enable it in production: webhooks must go only to public hosts.',
    );
  }
  const tracing = serverTracing(opentelemetry);
  return async (job: QueuedEvent): Promise<AttemptOutcome> => {
    const at = new Date().toISOString();
    const span = attemptSpan(tracing, check.url, job);
    const result = await deliverEvent(target.url, job.payload, {
      timeoutMs,
      allowPrivate: target.allowPrivate,
      insecureLocalhost: target.insecureLocalhost,
      ca: target.ca,
      lookup: target.lookup,
      maxResponseBytes: RESPONSE_KEEP_BYTES,
      headers: (body) => ({ ...headers(job.id, body), ...traceHeaders(span.trace) }),
      ...(agents ? { agents } : {}),
    });
    endAttemptSpan(span, result);
    const outcome = judge(result, at, schedule, job.attemptsMade + 1, target.secret !== undefined);
    report(log, observer, job, outcome, schedule.length);
    return outcome;
  };
}

const RESULT_OF: Record<string, AttemptResult> = {
  bad_status: 'http_status',
  redirect: 'http_status',
  timeout: 'timeout',
  dns_failed: 'network',
  tls_failed: 'network',
  connection_failed: 'network',
  invalid_url: 'refused',
  blocked_address: 'refused',
};

/** The recorded attempt and what follows it. */
function judge(result: DeliveryResult, at: string, schedule: readonly number[], attempt: number, signed: boolean): AttemptOutcome {
  const kind = result.delivered ? ('delivered' as const) : (RESULT_OF[result.reason] ?? 'network');
  const recorded = {
    at,
    result: kind,
    ...(result.status !== undefined ? { status: result.status } : {}),
    durationMs: result.durationMs,
    ...(result.response && result.response.bytes > 0 ? { response: result.response.body } : {}),
    // An answer speaks for itself (status, body); an attempt without one keeps why.
    ...(!result.delivered && kind !== 'http_status' ? { reason: result.message } : {}),
  };
  if (result.delivered) return { attempt: recorded, next: { kind: 'delivered' } };
  const asked = askedMs(result);
  return {
    attempt: recorded,
    next: nextStep(schedule, attempt, result),
    detail: adviceFor(result, signed),
    ...(asked !== undefined ? { retryAfterMs: asked } : {}),
  };
}

/** The receiver's Retry-After as the delivery policy honours it (its statuses, its cap), in ms. */
function askedMs(result: DeliveryResult): number | undefined {
  const { retryAfter } = WEBHOOK_DELIVERY_POLICY;
  if (result.status === undefined || !(retryAfter.statuses as readonly number[]).includes(result.status)) return undefined;
  const asked = retryAfterMs(result.retryAfter);
  return asked === undefined ? undefined : cappedRetryAfterMs(asked, retryAfter);
}

function report(log: Logger, observer: DeliveryObserver | undefined, job: QueuedEvent, outcome: AttemptOutcome, attempts: number): void {
  const fields = { ...identity(job.payload), webhookId: job.id, attempt: job.attemptsMade + 1, attempts, durationMs: outcome.attempt.durationMs };
  safely(log, () => observer?.attempt?.(outcome.attempt));
  const { next } = outcome;
  if (next.kind === 'delivered') {
    log.info({ ...fields, status: outcome.attempt.status }, 'webhook delivered');
    const created = Date.parse(job.payload.timestamp);
    const seconds = (Date.now() - (Number.isFinite(created) ? created : job.queuedAt)) / 1000;
    safely(log, () => observer?.delivered?.(Math.max(0, seconds)));
    return;
  }
  const failure = { ...fields, result: outcome.attempt.result, status: outcome.attempt.status, detail: outcome.detail };
  if (next.kind === 'retry') log.warn({ ...failure, nextDelayMs: next.delayMs }, 'webhook attempt failed; will retry');
  else if (next.reason === 'gone') log.error(failure, 'webhook endpoint answered 410 Gone; moved to the dead-letter list');
  else log.error(failure, `webhook delivery failed ${fields.attempt} times; moved to the dead-letter list`);
}

/** An observer must never break a delivery: one that throws is logged, and the delivery goes on. */
function safely(log: Logger, call: () => void): void {
  try {
    call();
  } catch (err) {
    log.error({ err }, 'webhook delivery observer threw; the delivery goes on');
  }
}

// Optional chaining: enqueue logs whatever it is given and must never throw.
function identity(event: SessionEvent | undefined) {
  return { event: event?.event, sessionId: event?.session?.id, timestamp: event?.timestamp };
}

function toWebhookMessage(given: WebhookMessage | SessionEvent | undefined): WebhookMessage | undefined {
  if (given === null || typeof given !== 'object') return undefined;
  if (typeof (given as WebhookMessage).id === 'string' && 'payload' in given) return given as WebhookMessage;
  return { id: `msg_${randomUUID()}`, payload: given as SessionEvent };
}

/** The wire form, checked and copied once: every attempt sends the same bytes (receivers dedupe by them). */
function snapshot(event: WebhookMessage | undefined, logger: Logger): WebhookMessage | undefined {
  const valid = contract.validate('SessionEvent', event?.payload);
  if (!event || !valid.ok) {
    logger.error({ detail: valid.ok ? 'no event' : valid.message }, 'webhook event is not a SessionEvent (spec/openapi.yaml); dropped');
    return undefined;
  }
  try {
    // An event queued without a trace context (a bare SessionEvent) starts its own trace.
    const trace = checkTraceContext(event.trace) ?? newTraceContext();
    return { id: event.id, payload: JSON.parse(JSON.stringify(event.payload)) as SessionEvent, trace };
  } catch (err) {
    logger.error({ ...identity(event.payload), err }, 'webhook event cannot be serialized as JSON; dropped');
    return undefined;
  }
}

function checkSchedule(schedule: readonly number[]): readonly number[] {
  checkOption(Array.isArray(schedule) && schedule.length > 0, 'The retry schedule must list at least one delay in whole ms ≥ 0.', 'schedule');
  for (const ms of schedule) checkInteger('createDeliveryEngine: schedule', ms, { min: 0 });
  return schedule;
}
