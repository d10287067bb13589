/** The demo sessions every server, sandbox world and stateful MSW handler starts with when no seed file is given. */

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
