/**
 * The demo set of sessions: what the reference server, the sandbox's worlds and the stateful
 * MSW handlers start with when no seed file is given. Browser-safe.
 */

/** A session to seed: `{ id, status }` (`paused` is resumable; x-decisions: session-status). */
export interface DemoSession {
  readonly id: string;
  readonly status: string;
}

/** Three paused sessions and one running. */
export const DEMO_SESSIONS: readonly DemoSession[] = Object.freeze([
  { id: 'sess_paused_1', status: 'paused' },
  { id: 'sess_paused_2', status: 'paused' },
  { id: 'sess_paused_3', status: 'paused' },
  { id: 'sess_running_1', status: 'running' },
]);
