/** Label values of `session_resume_requests_total{outcome}`. */
export const RESUME_RESULT_LABELS = ['resumed', 'not_paused', 'not_found', 'unauthorized', 'rate_limited', 'unavailable', 'invalid'] as const;

/** The metrics label of one resume request's result (the client's `ResumeOutcome` is the typed answer, a different thing). */
export type ResumeResultLabel = (typeof RESUME_RESULT_LABELS)[number];

/**
 * 200 resumed, 409 not_paused, 404 not_found, 401 unauthorized, 429 rate_limited, 5xx unavailable;
 * any other status is a request the spec refuses: invalid.
 * @example resumeResultLabel(409) // 'not_paused'
 */
export function resumeResultLabel(status: number): ResumeResultLabel {
  switch (status) {
    case 200:
      return 'resumed';
    case 409:
      return 'not_paused';
    case 404:
      return 'not_found';
    case 401:
      return 'unauthorized';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'unavailable' : 'invalid';
  }
}

const RESUME_REQUEST = /^\/v1\/sessions\/[^/?#]+\/resume(?:\?.*)?$/;

/** Whether a request is a resume request (method and raw path). */
export function isResumeRequest(method: string | undefined, url: string | undefined): boolean {
  return method === 'POST' && RESUME_REQUEST.test(url ?? '');
}
