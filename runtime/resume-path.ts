/** The resume operation's path in the three spellings the code needs. Browser-safe. */

/** The OpenAPI path template: the key of `paths` in spec/openapi.yaml and generated/api.d.ts. */
export const RESUME_PATH = '/v1/sessions/{session_id}/resume' as const;

/** The same path as an express route pattern. */
export const RESUME_ROUTE = '/v1/sessions/:session_id/resume';

/**
 * The URL that resumes `sessionId` under `baseUrl`; the id is percent-encoded so it never changes the path.
 * @example resumeUrl('https://api.example.com', 'a/b') // 'https://api.example.com/v1/sessions/a%2Fb/resume'
 */
export function resumeUrl(baseUrl: string, sessionId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/sessions/${encodeURIComponent(sessionId)}/resume`;
}
