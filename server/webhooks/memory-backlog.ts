/**
 * The endpoint's held backlog in memory (x-decisions: endpoint-health): the in-process queue
 * keeps no order of its own for waiting events, so the backlog records each held event's id with
 * the time it was due (the first one recorded stays), and a release wakes the earliest due
 * through the queue's `promote`. Bounded by the queue: an id is recorded only for an event the
 * queue holds, and goes when the event is admitted or found gone.
 */
import type { DeliveryQueue, HeldBacklog } from './delivery-queue.js';

/**
 * The backlog of one in-process queue.
 * @example const backlog = createMemoryBacklog(queue);
 */
export function createMemoryBacklog(queue: Pick<DeliveryQueue, 'promote'>): HeldBacklog {
  /** Held ids with their due time, and whether a release already let them go. */
  const held = new Map<string, { dueAt: number; released: boolean }>();
  // Ids not released yet: counted as they change, since every held attempt asks the count.
  let waiting = 0;
  // Ids not released yet in due order, and how many of them releases took.
  let order: string[] | undefined;
  let taken = 0;
  const forget = (id: string) => {
    if (held.get(id)?.released === false) waiting--;
    held.delete(id);
  };
  return {
    async count() {
      return waiting;
    },
    async release(count) {
      // Sorted once per change of the held events, not once per release.
      order ??= [...held]
        .filter(([, one]) => !one.released)
        .sort((a, b) => a[1].dueAt - b[1].dueAt)
        .map(([id]) => id);
      const next: string[] = [];
      while (next.length < count && taken < order.length) {
        const id = order[taken++]!;
        if (held.get(id)?.released === false) next.push(id);
      }
      for (const id of next) {
        held.get(id)!.released = true;
        waiting--;
        // Not waiting any more (delivered, dropped at close): forget it.
        if (!(await queue.promote(id))) forget(id);
      }
      return next.length;
    },
    held(id, dueAt) {
      order = undefined;
      taken = 0;
      const known = held.get(id);
      if (known?.released !== false) waiting++;
      held.set(id, { dueAt: known?.dueAt ?? dueAt, released: false });
    },
    admitted: forget,
  };
}
