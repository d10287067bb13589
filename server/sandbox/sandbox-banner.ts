/** The plain-text start-up message of sandbox mode: a ready-to-paste key and curl line. */

/**
 * Renders the banner for a sandbox at `baseUrl`, naming `sessionId` (a paused seed) in the
 * curl line. @example process.stdout.write(renderSandboxBanner('http://127.0.0.1:3000', newSandboxKey(), 'sess_paused_1'))
 */
export function renderSandboxBanner(baseUrl: string, key: string, sessionId: string): string {
  const auth = `-H 'Authorization: Bearer ${key}'`;
  return [
    '',
    `SANDBOX MODE: Session Resume reference server at ${baseUrl} (not for production)`,
    '',
    `  Key:     ${key}`,
    '           any token starting with sandbox_ is valid and gets its own world of sessions',
    `  Try:     curl -X POST ${baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/resume ${auth}`,
    `  Force:   curl -X POST ${baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/resume ${auth} -H 'Prefer: code=429'`,
    `  State:   curl ${baseUrl}/_sandbox/sessions ${auth}`,
    `  Events:  curl ${baseUrl}/_sandbox/events ${auth}   (add -N -H 'Accept: text/event-stream' to follow)`,
    `  Reset:   curl -X POST ${baseUrl}/_sandbox/reset ${auth}`,
    '',
  ].join('\n');
}
