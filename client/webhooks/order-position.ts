/** The order of events within a session (`order: 'per-session'`), shared by every store. */
import type { OrderPoint } from './store.js';

/** An earlier timestamp, or the same and an earlier arrival; never older than itself. */
export function isOlderPosition(position: OrderPoint, newest: OrderPoint): boolean {
  if (position.id === newest.id) return false;
  return position.time < newest.time || (position.time === newest.time && position.arrival < newest.arrival);
}
