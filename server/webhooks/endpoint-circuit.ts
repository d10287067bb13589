/**
 * The circuit of the webhook endpoint as the delivery engine uses it (x-decisions:
 * endpoint-health): the rules of server/webhooks/endpoint-circuit-rules.ts over a store every
 * instance shares (Redis: server/webhooks/redis-endpoint-health.ts; memory: one process). Each
 * instance keeps a view of the state, reread every `refreshMs`; an attempt asks the view, so a
 * healthy endpoint costs no store round trip per attempt: only failures, probes and the first
 * success after a failure write. Each change of state is logged, observed and notified once, by
 * the instance that made it. Held events wait in the endpoint's held backlog, kept and drained by
 * server/webhooks/endpoint-backlog.ts on each reread.
 */
import type { Logger } from 'pino';
import {
  admitAttempt,
  CLOSED_CIRCUIT,
  nextHealth,
  type Admission,
  type EndpointHealth,
  type EndpointState,
  type HealthSignal,
} from './endpoint-circuit-rules.js';
import { ENDPOINT_HEALTH_POLICY, type EndpointHealthPolicy } from './endpoint-health-policy.js';
import type { DeliveryObserver } from './delivery-types.js';
import type { AttemptOutcome, HeldAttempt, HeldBacklog, QueuedEvent } from './delivery-queue.js';
import { createBacklogKeeper, type HeldOverflow } from './endpoint-backlog.js';

/** Where the state of an endpoint lives. */
export interface EndpointHealthStore {
  /** The shared state. */
  read(): Promise<EndpointHealth>;
  /**
   * Applies `change` to the shared state atomically; `after` is `before` itself (the same object)
   * when `change` returned its argument.
   */
  update(change: (health: EndpointHealth) => EndpointHealth): Promise<{ before: EndpointHealth; after: EndpointHealth }>;
}

/** One change of state, as logged, observed and notified. */
export interface EndpointChange {
  /** The endpoint's origin. */
  endpoint: string;
  from: EndpointState;
  to: EndpointState;
  health: EndpointHealth;
  /** When, ISO 8601 UTC. */
  at: string;
}

/** The endpoint-health settings a delivery takes; the store, the endpoint and the logger are the delivery's own. */
export interface EndpointHealthSettings {
  /**
   * The figures.
   * @defaultValue {@link ENDPOINT_HEALTH_POLICY}
   */
  policy?: EndpointHealthPolicy;
  /**
   * The clock, ms since the epoch; for tests.
   * @defaultValue `Date.now`
   */
  clock?: () => number;
  /**
   * Told each change of state this instance made (metrics, the operator's notification); must not throw.
   * @defaultValue none
   */
  onChange?: (change: EndpointChange) => void;
  /**
   * Told each event this instance sent to the dead letters because the held backlog was full
   * (metrics, the operator's notification); must not throw.
   * @defaultValue none
   */
  onOverflow?: (overflow: HeldOverflow) => void;
}

/** Options of `createEndpointCircuit`. */
export interface EndpointCircuitOptions extends EndpointHealthSettings {
  store: EndpointHealthStore;
  /** The endpoint's origin, for logs and notifications. */
  endpoint: string;
  logger: Logger;
  /** Where held events wait: the delivery queue's backlog. */
  backlog: HeldBacklog;
  /**
   * Release held events from this instance (the probe's event, the drain): off for an instance that does not deliver.
   * @defaultValue `true`
   */
  drains?: boolean;
}

/** The shared state with the number of events held (`webhooks endpoint --json` prints this shape, its times as ISO 8601). */
export interface EndpointStatus extends EndpointHealth {
  /** Events held for the endpoint now (at most `maxHeldEvents`, plus the attempts under way). */
  held: number;
}

/** The change and overflow hooks of a delivery: the caller's, then the observer's (metrics). */
export function changeHooks(
  options: EndpointHealthOptions | undefined,
  observer: DeliveryObserver | undefined,
): Pick<EndpointCircuitOptions, 'onChange' | 'onOverflow'> {
  const given = options === false ? undefined : options;
  return {
    ...(given?.onChange || observer?.endpointChanged
      ? {
          onChange: (change: EndpointChange) => {
            given?.onChange?.(change);
            observer?.endpointChanged?.(change);
          },
        }
      : {}),
    ...(given?.onOverflow || observer?.heldOverflow
      ? {
          onOverflow: (overflow: HeldOverflow) => {
            given?.onOverflow?.(overflow);
            observer?.heldOverflow?.(overflow);
          },
        }
      : {}),
  };
}

/** The endpoint-health option of a delivery: its settings, or `false` for no circuit (every attempt goes). */
export type EndpointHealthOptions = false | EndpointHealthSettings;

/** What one attempt reports to the circuit. */
export interface AttemptReport {
  delivered: boolean;
  status?: number | undefined;
  /** The receiver's Retry-After, in ms. */
  retryAfterMs?: number | undefined;
}

/** The circuit one engine asks before each attempt and tells after it. */
export interface EndpointCircuit {
  /** Whether an attempt may go now; `probe` has claimed the probe for this attempt. */
  admit(): Promise<Admission>;
  /** The outcome of an admitted attempt. */
  record(report: AttemptReport, probe: boolean): Promise<void>;
  /** Holds an attempt the circuit did not admit: into the held backlog, or past its bound to the dead letters. */
  hold(event: QueuedEvent): Promise<HeldAttempt | AttemptOutcome>;
  /** The circuit admitted this event (it leaves the held backlog's record). */
  admitted(id: string): void;
  /** The shared state and the held events, read now. */
  read(): Promise<EndpointStatus>;
  /** Closes the circuit and resets the streak (the operator's `enable`). */
  enable(): Promise<EndpointHealth>;
  /** Stops rereading the shared state. */
  close(): void;
}

/**
 * Creates the circuit and starts rereading the shared state.
 * @example const circuit = createEndpointCircuit({ store: createMemoryHealthStore(), backlog: createMemoryBacklog(queue), endpoint: 'https://hooks.example.com', logger });
 */
export function createEndpointCircuit(options: EndpointCircuitOptions): EndpointCircuit {
  const { store, logger } = options;
  const policy = options.policy ?? ENDPOINT_HEALTH_POLICY;
  const clock = options.clock ?? Date.now;
  let view: EndpointHealth = CLOSED_CIRCUIT;
  // Changes this instance wrote; a reread asked before one of them answers an older state.
  let writes = 0;
  const apply = async (signal: HealthSignal, now: number) => {
    const { before, after } = await store.update((health) => nextHealth(health, signal, now, policy));
    writes++;
    view = after;
    if (before.state !== after.state) announce(options, before.state, after, now);
    return { before, after };
  };
  const keeper = createBacklogKeeper({ backlog: options.backlog, policy, endpoint: options.endpoint, logger, clock, onOverflow: options.onOverflow });
  const drains = options.drains ?? true;
  const rereads = startRereads(policy.refreshMs, async () => {
    try {
      const asked = writes;
      const read = await store.read();
      if (asked === writes) view = read;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'endpoint health not read; the last state read stays in use');
      return undefined;
    }
    if (!drains) return undefined;
    await keeper.tend(view, apply);
    // A probe due before the next reread is released when it is due, not up to a reread later.
    return view.state === 'open' ? (view.nextProbeAt ?? 0) - clock() : undefined;
  });

  return {
    async admit() {
      const now = clock();
      let seen = admitAttempt(view, now);
      // Held on this instance's copy: the shared state may have closed since (enable, another instance's probe).
      if (seen.kind === 'hold') seen = admitAttempt((view = await reread(store, view, logger)), now);
      if (seen.kind !== 'probe') return seen;
      try {
        const { before, after } = await apply({ kind: 'claim_probe' }, now);
        return before !== after ? seen : admitAttempt(after, now);
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'endpoint probe not claimed; held');
        return { kind: 'hold', untilMs: now + policy.refreshMs };
      }
    },
    async record(report, probe) {
      await recordOutcome(view, report, probe, (signal) => apply(signal, clock()), logger);
      if (drains) keeper.finished(report.delivered, view, apply);
    },
    hold: (event) => keeper.hold(event, view),
    admitted: (id) => keeper.admitted(id),
    read: () => Promise.all([store.read(), options.backlog.count()]).then(([health, held]) => ({ ...health, held })),
    enable: async () => (await apply({ kind: 'enable' }, clock())).after,
    close: rereads.stop,
  };
}

/**
 * Runs `reread` now and every `everyMs`; when it answers a wait shorter than that (a probe due
 * sooner), once more after that wait.
 */
function startRereads(everyMs: number, reread: () => Promise<number | undefined>): { stop: () => void } {
  let soon: NodeJS.Timeout | undefined;
  const run = async () => {
    const wait = await reread();
    if (wait !== undefined && wait > 0 && wait < everyMs && !soon) soon = setTimeout(() => ((soon = undefined), void run()), wait).unref();
  };
  void run();
  const timer = setInterval(() => void run(), everyMs).unref();
  return {
    stop() {
      clearInterval(timer);
      clearTimeout(soon);
    },
  };
}

/** The shared state read now, or `last` when it cannot be read (logged). */
async function reread(store: EndpointHealthStore, last: EndpointHealth, logger: Logger): Promise<EndpointHealth> {
  try {
    return await store.read();
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'endpoint health not read; the last state read stays in use');
    return last;
  }
}

/** Tells the shared state an attempt's outcome; a success on a healthy endpoint writes nothing (no round trip per delivered attempt). */
async function recordOutcome(
  view: EndpointHealth,
  report: AttemptReport,
  probe: boolean,
  apply: (signal: HealthSignal) => Promise<unknown>,
  logger: Logger,
): Promise<void> {
  if (report.delivered && view.state === 'closed' && view.streak === 0 && view.slowDowns === 0) return;
  const signal: HealthSignal = report.delivered ? { kind: 'delivered' } : { kind: 'failed', probe, status: report.status, retryAfterMs: report.retryAfterMs };
  try {
    await apply(signal);
  } catch (err) {
    logger.warn({ err: (err as Error).message, delivered: report.delivered }, 'endpoint health not updated');
  }
}

/** A log line and the observer's call for one change of state. */
function announce(options: EndpointCircuitOptions, from: EndpointState, health: EndpointHealth, now: number): void {
  const change: EndpointChange = { endpoint: options.endpoint, from, to: health.state, health, at: new Date(now).toISOString() };
  const fields = { webhook: options.endpoint, from, to: health.state, reason: health.reason, streak: health.streak, nextProbeAt: iso(health.nextProbeAt) };
  if (health.state === 'closed') options.logger.info(fields, 'webhook endpoint healthy again: deliveries resume');
  else if (health.state === 'open') options.logger.warn(fields, 'webhook endpoint failing: deliveries paused, one probe at a time');
  else options.logger.error(fields, 'webhook endpoint disabled: events are held until `webhooks endpoint enable`');
  try {
    options.onChange?.(change);
  } catch (err) {
    options.logger.error({ err }, 'endpoint change hook threw');
  }
}

function iso(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/**
 * The store of the memory delivery: one process, no sharing.
 * @example const store = createMemoryHealthStore();
 */
export function createMemoryHealthStore(): EndpointHealthStore {
  let health: EndpointHealth = CLOSED_CIRCUIT;
  return {
    read: async () => health,
    async update(change) {
      const before = health;
      health = change(before);
      return { before, after: health };
    },
  };
}
