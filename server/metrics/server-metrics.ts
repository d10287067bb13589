/** The server's Prometheus metrics (prom-client) and the hooks that feed them. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptResult, DeliveryInspector, DeliveryObserver } from '../webhooks/delivery-types.js';
import { isResumeRequest, resumeResultLabel, RESUME_RESULT_LABELS } from './resume-result-label.js';

/** Options of `createServerMetrics`. */
export interface ServerMetricsOptions {
  /**
   * Where the metrics are registered.
   * @defaultValue a new `Registry`
   */
  registry?: Registry;
  /**
   * Also collect prom-client's default process metrics (CPU, memory, event loop, GC).
   * @defaultValue `true`
   */
  defaultMetrics?: boolean;
}

/** The server's metrics and the hooks that feed them. */
export interface ServerMetrics {
  registry: Registry;
  /** Hand to the delivery engine: counts attempts and times deliveries. */
  observer: DeliveryObserver;
  /** Middleware: counts each resume request's outcome from its status on 'finish'; calls `next` at once. */
  countRequests(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Reads the delivery engine's stats and endpoint state at each scrape. */
  watchDelivery(inspector: WatchedDelivery): void;
}

const ATTEMPT_RESULTS: readonly AttemptResult[] = ['delivered', 'http_status', 'timeout', 'network', 'refused'];

/** Buckets of `session_resume_webhook_delivery_seconds`: a first attempt (tens of ms) to a retry schedule waited out (days). */
export const DELIVERY_SECONDS_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36_000, 86_400, 172_800];

/**
 * Creates the metrics in `registry`.
 * @example
 * const metrics = createServerMetrics();
 * const engine = createRedisDelivery({ ...options, observer: metrics.observer });
 * metrics.watchDelivery(engine);
 * await startMetricsListener({ registry: metrics.registry, port: 9464, host: '127.0.0.1' });
 */
export function createServerMetrics(options: ServerMetricsOptions = {}): ServerMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: 'session_resume_requests_total',
    help: 'Resume requests (POST /v1/sessions/{session_id}/resume) by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const attempts = new Counter({
    name: 'session_resume_webhook_attempts_total',
    help: 'Webhook delivery attempts by result: delivered (200), http_status (another status), timeout, network, refused (URL policy).',
    labelNames: ['result'],
    registers,
  });
  const deliverySeconds = new Histogram({
    name: 'session_resume_webhook_delivery_seconds',
    help: "Seconds from a session event's creation to its delivery (a 200 from the receiver), retries included.",
    buckets: [...DELIVERY_SECONDS_BUCKETS],
    registers,
  });
  const watchDelivery = watchDeliveryGauge(registers);
  const endpointChanges = new Counter({
    name: 'session_resume_webhook_endpoint_changes_total',
    help: "Changes of the webhook endpoint's circuit made by this instance, by the state entered: open (paused, probing), disabled, closed (delivering again).",
    labelNames: ['to'],
    registers,
  });
  for (const to of ENDPOINT_STATES) endpointChanges.inc({ to }, 0);
  const heldOverflow = new Counter({
    name: 'session_resume_webhook_held_overflow_total',
    help: "Events this instance sent to the dead-letter list because the webhook endpoint's held backlog was full (maxHeldEvents): replay them once the endpoint delivers.",
    registers,
  });
  // Every label value present from the start: a rate() over a series that appears late misses its first increase.
  for (const outcome of RESUME_RESULT_LABELS) requests.inc({ outcome }, 0);
  for (const result of ATTEMPT_RESULTS) attempts.inc({ result }, 0);

  return {
    registry,
    observer: {
      attempt: (attempt) => attempts.inc({ result: attempt.result }),
      delivered: (seconds) => deliverySeconds.observe(Math.max(0, seconds)),
      endpointChanged: (change) => endpointChanges.inc({ to: change.to }),
      heldOverflow: () => heldOverflow.inc(),
    },
    countRequests(req, res, next) {
      if (isResumeRequest(req.method, req.url)) res.once('finish', () => requests.inc({ outcome: resumeResultLabel(res.statusCode) }));
      next();
    },
    watchDelivery,
  };
}

/** The engine's reads the delivery gauges take at each scrape. */
export type WatchedDelivery = Pick<DeliveryInspector, 'stats'> & { endpoint?: () => Promise<{ state: string; held?: number } | undefined> };

/** States of `session_resume_webhook_endpoint_state{state}`. */
const ENDPOINT_STATES = ['closed', 'open', 'disabled'] as const;

function watchDeliveryGauge(registers: Registry[]): (inspector: WatchedDelivery) => void {
  let inspector: WatchedDelivery | undefined;
  // Both endpoint gauges are collected together on a scrape: one read of the shared state serves them.
  let reading: ReturnType<NonNullable<WatchedDelivery['endpoint']>> | undefined;
  const readEndpoint = () => {
    const read = inspector?.endpoint;
    if (!read) return undefined;
    return (reading ??= read().finally(() => (reading = undefined)));
  };
  new Gauge({
    name: 'session_resume_webhook_endpoint_state',
    help: "The webhook endpoint's circuit, shared by every instance: 1 for the current state (closed delivers; open holds events and probes; disabled holds them until enabled).",
    labelNames: ['state'],
    registers,
    async collect() {
      const read = readEndpoint();
      if (!read) return;
      try {
        const health = await read;
        if (!health) return;
        for (const state of ENDPOINT_STATES) this.set({ state }, health.state === state ? 1 : 0);
      } catch {
        this.reset();
      }
    },
  });
  new Gauge({
    name: 'session_resume_webhook_endpoint_held_events',
    help: 'Events held for the webhook endpoint while it is open or disabled, shared by every instance (at most maxHeldEvents; past it they go to the dead-letter list).',
    registers,
    async collect() {
      const read = readEndpoint();
      if (!read) return;
      try {
        const health = await read;
        if (health?.held !== undefined) this.set(health.held);
      } catch {
        this.reset();
      }
    },
  });
  new Gauge({
    // Named `outbox`: dashboards and alerts query it.
    name: 'session_resume_outbox_events',
    help: 'Events held by the webhook delivery engine: pending (waiting or being delivered), dead (out of attempts; replay them).',
    labelNames: ['state'],
    registers,
    // No sample while the engine cannot say: never a stale count.
    async collect() {
      if (!inspector) return;
      try {
        const stats = await inspector.stats();
        this.set({ state: 'pending' }, stats.pending + stats.delivering);
        this.set({ state: 'dead' }, stats.dead);
      } catch {
        this.reset();
      }
    },
  });
  return (source) => {
    inspector = source;
  };
}
