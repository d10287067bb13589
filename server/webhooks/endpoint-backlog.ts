/**
 * What the endpoint's circuit does with the events it holds (x-decisions: endpoint-health):
 * each joins the held backlog at the time it was due, at most `maxHeldEvents` of them (one more
 * goes to the dead letters with the reason `held_overflow`, logged and counted, for the operator
 * to replay once the endpoint delivers); while the circuit is open the probe is the earliest due;
 * once it closes, the backlog drains earliest due first, clocked by the endpoint's answers: each
 * instance counts the attempts it finished and, once they make a quarter of the window (or
 * nothing is in flight), claims the next release on the shared state, reporting them; the
 * refresh also claims, so a drain never waits on an instance that stopped. Nothing here runs
 * while the endpoint is healthy and nothing was held.
 */
import type { Logger } from 'pino';
import type { AttemptOutcome, HeldAttempt, HeldBacklog, QueuedEvent } from './delivery-queue.js';
import type { EndpointHealth, HealthSignal } from './endpoint-circuit-rules.js';
import type { EndpointHealthPolicy } from './endpoint-health-policy.js';

/**
 * How long a held event waits in a queue that keeps no place of its own (the in-process one)
 * unless the backlog releases it: the longest timer Node.js keeps, about 24.8 days.
 */
export const HELD_MAX_WAIT_MS = 2 ** 31 - 1;

/** One event sent to the dead letters because the held backlog was full. */
export interface HeldOverflow {
  /** The endpoint's origin. */
  endpoint: string;
  /** The event's webhook-id. */
  id: string;
  /** The bound it met (`maxHeldEvents`). */
  maxHeldEvents: number;
  /** The endpoint's state as this instance saw it. */
  health: EndpointHealth;
  /** The first overflow of this instance since the endpoint last delivered (the operator is notified of it alone). */
  first: boolean;
  /** When, ISO 8601 UTC. */
  at: string;
}

/** What the backlog's keeper needs from the circuit. */
export interface BacklogKeeperOptions {
  backlog: HeldBacklog;
  policy: EndpointHealthPolicy;
  endpoint: string;
  logger: Logger;
  clock: () => number;
  /**
   * Told each event sent to the dead letters past the bound; must not throw.
   * @defaultValue none
   */
  onOverflow?: ((overflow: HeldOverflow) => void) | undefined;
}

/** Applies a signal to the shared state (the circuit's). */
export type ApplySignal = (signal: HealthSignal, now: number) => Promise<{ before: EndpointHealth; after: EndpointHealth }>;

/** The keeper of one endpoint's held backlog. */
export interface BacklogKeeper {
  /** Holds an attempt the state `view` did not admit: parks it at its due time, or past the bound sends it to the dead letters. */
  hold(event: QueuedEvent, view: EndpointHealth): Promise<HeldAttempt | AttemptOutcome>;
  /** The circuit admitted the event. */
  admitted(id: string): void;
  /** One look at the backlog for the state `view` (on each reread): the probe's event, or the drain's next release. */
  tend(view: EndpointHealth, apply: ApplySignal): Promise<void>;
  /** An admitted attempt finished while the state `view` drains: counted, and the next release claimed when the count is due. */
  finished(delivered: boolean, view: EndpointHealth, apply: ApplySignal): void;
}

/** What this instance's drain knows: attempts finished and not yet reported, and whether held events may be left over. */
interface DrainState {
  leftOver: boolean;
  done: number;
  acked: number;
}

/** Creates the keeper; the first `tend` drains what an earlier run left held. */
export function createBacklogKeeper(options: BacklogKeeperOptions): BacklogKeeper {
  const { backlog, policy, logger } = options;
  // Held events may be left over (by an earlier run, or held here on a view older than the close).
  const drainState: DrainState = { leftOver: true, done: 0, acked: 0 };
  let busy = false;
  // A look asked for while one was under way: the one under way looks again when it ends.
  let again: { view: EndpointHealth; apply: ApplySignal } | undefined;
  // Whether this instance sent an event to the dead letters since the endpoint last delivered.
  let overflowed = false;
  const tend = async (view: EndpointHealth, apply: ApplySignal): Promise<void> => {
    if (busy) {
      again = { view, apply };
      return;
    }
    busy = true;
    if (view.state === 'closed') overflowed = false;
    await look(options, drainState, view, apply).finally(() => (busy = false));
    const next = again;
    again = undefined;
    if (next) await tend(next.view, next.apply);
  };
  return {
    async hold(event, view) {
      // Real time, as the queues keep it: a first attempt was due when queued, a retry when first held.
      const dueAt = event.dueAt ?? (event.attemptsMade === 0 ? event.queuedAt : Date.now());
      drainState.leftOver = true;
      const held = await backlog.count().catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'held events not counted; the event is held');
        return 0;
      });
      if (held >= policy.maxHeldEvents) {
        const first = !overflowed;
        overflowed = true;
        return overflow(options, event, view, first);
      }
      backlog.held?.(event.id, dueAt);
      return { held: { delayMs: HELD_MAX_WAIT_MS, dueAt } };
    },
    admitted(id) {
      backlog.admitted?.(id);
    },
    tend,
    finished(delivered, view, apply) {
      if (view.state !== 'closed' || view.drainAt === undefined) return;
      drainState.done++;
      if (delivered) drainState.acked++;
      const quarter = Math.max(1, Math.floor((view.drainWindow ?? policy.drainFirstWindow) / 4));
      if (drainState.done >= quarter || (view.drainOutstanding ?? 0) <= drainState.done) void tend(view, apply);
    },
  };
}

/** One look at the backlog: while open the due probe's event, while closed the drain's next release; failures logged. */
async function look(options: BacklogKeeperOptions, state: DrainState, view: EndpointHealth, apply: ApplySignal): Promise<void> {
  const { backlog, clock, logger } = options;
  try {
    // Open: when the probe is due, one instance releases the earliest held event to make it.
    if (view.state === 'open' && clock() >= (view.nextProbeAt ?? 0)) {
      const { before, after } = await apply({ kind: 'release_probe' }, clock());
      if (before !== after) await backlog.release(1);
    } else if (view.state === 'closed') {
      await drain(options, state, view, apply);
    }
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'held events not released; the next reread tries again');
  }
}

/** Claims the next release of the drain, reporting the attempts finished here, and lets go what the window allows. */
async function drain(options: BacklogKeeperOptions, state: DrainState, view: EndpointHealth, apply: ApplySignal): Promise<void> {
  const { backlog, clock } = options;
  let current = view;
  if (current.drainAt === undefined) {
    if (!state.leftOver) return;
    state.leftOver = false;
    if ((await backlog.count()) === 0) return;
    current = (await apply({ kind: 'resume_drain' }, clock())).after;
  }
  if (current.drainAt === undefined || clock() < current.drainAt) return;
  const { done, acked } = state;
  const { before, after } = await apply({ kind: 'claim_drain', done, acked }, clock());
  if (before === after) return;
  state.done -= done;
  state.acked -= acked;
  const batch = after.drainBatch ?? 0;
  if (batch === 0) return;
  const found = await backlog.release(batch);
  await apply({ kind: 'released', asked: batch, found }, clock());
}

/** The event goes to the dead letters, with no request: the backlog is full. */
function overflow(options: BacklogKeeperOptions, event: QueuedEvent, health: EndpointHealth, first: boolean): AttemptOutcome {
  const max = options.policy.maxHeldEvents;
  const at = new Date().toISOString();
  const detail = `held_overflow: the endpoint's held backlog is full (${max} events, maxHeldEvents); replay this event once the endpoint delivers`;
  options.logger.error(
    { webhook: options.endpoint, webhookId: event.id, event: event.payload.event, sessionId: event.payload.session.id, maxHeldEvents: max },
    'webhook endpoint paused and its held backlog full: event moved to the dead-letter list (webhooks recover --status dead, or replay, once it delivers)',
  );
  try {
    options.onOverflow?.({ endpoint: options.endpoint, id: event.id, maxHeldEvents: max, health, first, at });
  } catch (err) {
    options.logger.error({ err }, 'held overflow hook threw');
  }
  return { attempt: { at, result: 'held_overflow', durationMs: 0, reason: detail }, next: { kind: 'dead', reason: 'held_overflow' }, detail };
}
