/**
 * The page's code: resume the session typed in the form and say what came of it. Bundled for
 * the browser (esbuild) as app.js. Where the API is and which key to send come from the page
 * URL (`?api=http://127.0.0.1:3100&key=sandbox_…`) so the same page runs against the sandbox,
 * the Prism mock or a staging server; `&prefer=code=429` forces an answer on the sandbox or the
 * mock (for tests only).
 */
import { createSessionsClient, type ResumeOutcome } from 'session-resume-api/client';

/** The text the page shows for each outcome: what a user reads, not the wire status. */
export function outcomeText(outcome: ResumeOutcome): string {
  switch (outcome.kind) {
    case 'resumed':
      return 'Resumed.';
    case 'not_paused':
      return 'This session is already running.';
    case 'not_found':
      return 'Session not found.';
    case 'unauthorized':
      return 'Your key was refused.';
    case 'rate_limited':
      return outcome.retryAfterSeconds === undefined
        ? 'Too many requests: try again in a moment.'
        : `Too many requests: try again in ${outcome.retryAfterSeconds} s.`;
    case 'unexpected':
      return `Something went wrong (HTTP ${outcome.status}).`;
  }
}

const params = new URLSearchParams(window.location.search);
const client = createSessionsClient({
  baseUrl: params.get('api') ?? 'http://127.0.0.1:3100',
  apiKey: params.get('key') ?? 'sandbox_demo',
  // A person is waiting: answer at once rather than retrying in the background.
  maxRetries: 0,
});
const prefer = params.get('prefer');

const form = document.querySelector<HTMLFormElement>('#resume-form');
const input = document.querySelector<HTMLInputElement>('#session-id');
const status = document.querySelector<HTMLElement>('#outcome');
form?.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!input || !status) return;
  status.textContent = 'Resuming…';
  client
    .resume(input.value.trim(), prefer ? { headers: { Prefer: prefer } } : {})
    .then((outcome) => (status.textContent = outcomeText(outcome)))
    .catch(() => (status.textContent = 'Cannot reach the service; check your connection.'));
});
