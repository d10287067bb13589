/**
 * The receiver's Prometheus counters, in the prom-client `Registry` the application passes as
 * `metrics`. prom-client is an optional peer dependency: only its types are imported here, and
 * the library itself is loaded on first use (a receiver without `metrics` never loads it).
 */
import type { Counter, Registry } from 'prom-client';
import type { ReceiveResult } from './answers.js';
import type { MetricsRegistry } from './metrics-registry.js';

/** Label values of `session_resume_receiver_events_total{result}`. */
export type ReceiverEventResult = 'new' | 'duplicate' | 'invalid' | 'unauthorized' | 'unavailable';
/** Label values of `session_resume_receiver_handler_runs_total{result}`. */
export type HandlerRunResult = 'ok' | 'failed' | 'stale';

/** What the receiver counts. */
export interface ReceiverMetrics {
  /** One answer of `receive` (a probe is not counted). */
  answered(result: ReceiveResult): void;
  /** One run of `onEvent`, or a stale event kept from it (`order: 'per-session'`). */
  handlerRan(result: HandlerRunResult): void;
}

type PromClient = typeof import('prom-client');

/** Counts kept while prom-client loads (a few ms); beyond this many, further early counts are dropped. */
const MAX_EARLY_COUNTS = 10_000;

// A literal specifier, so bundlers keep it external and the import-graph test sees it.
const importPromClient = (): Promise<PromClient> => import('prom-client');

/** The event result of one answer; undefined for the probe, which is acknowledged and never recorded. */
export function eventResultOf(result: ReceiveResult): ReceiverEventResult | undefined {
  if (result.status === 200) return 'probe' in result.body ? undefined : result.body.duplicate ? 'duplicate' : 'new';
  if (result.status === 401) return 'unauthorized';
  if (result.status === 503) return 'unavailable';
  return 'invalid';
}

/** The counter `name` of `registry`: the one already there (another receiver's), or a new one. */
function counter(prom: PromClient, registry: MetricsRegistry, name: string, help: string): Counter<'result'> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<'result'>;
  // isRegistry checked at creation that this is a prom-client Registry.
  return new prom.Counter({ name, help, labelNames: ['result'], registers: [registry as unknown as Registry] });
}

/** Whether `value` looks like a prom-client `Registry` (checked at creation). */
export function isRegistry(value: unknown): value is MetricsRegistry {
  const registry = value as Partial<MetricsRegistry> | null;
  return typeof registry?.getSingleMetric === 'function' && typeof registry.registerMetric === 'function' && typeof registry.metrics === 'function';
}

/**
 * Creates the two counters in `registry` once prom-client is loaded; counts made before that
 * are kept and added then. `onLoadError` hears when prom-client cannot be loaded.
 * @example const metrics = createReceiverMetrics(new Registry());
 */
export function createReceiverMetrics(
  registry: MetricsRegistry,
  onLoadError: (error: unknown) => void = () => undefined,
  importer: () => Promise<PromClient> = importPromClient,
): ReceiverMetrics {
  let events: Counter<'result'> | undefined;
  let runs: Counter<'result'> | undefined;
  let early: (() => void)[] | undefined = [];
  importer().then(
    (prom) => {
      events = counter(prom, registry, 'session_resume_receiver_events_total', 'Webhook deliveries received, by result: new, duplicate, invalid, unauthorized, unavailable.');
      runs = counter(prom, registry, 'session_resume_receiver_handler_runs_total', 'Runs of the onEvent handler, by result: ok, failed.');
      const queued = early ?? [];
      early = undefined;
      for (const count of queued) count();
    },
    (error: unknown) => {
      early = undefined;
      onLoadError(error);
    },
  );
  const whenLoaded = (count: () => void) => {
    if (!early) count();
    else if (early.length < MAX_EARLY_COUNTS) early.push(count);
  };
  return {
    answered(result) {
      const label = eventResultOf(result);
      if (label) whenLoaded(() => events?.inc({ result: label }));
    },
    handlerRan(result) {
      whenLoaded(() => runs?.inc({ result }));
    },
  };
}
