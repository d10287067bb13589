/** The text the mock launcher prints once Prism listens: base URL, sample key, scenario table. */
import { MOCK_SAMPLE_KEY, renderScenarioText } from './scenario-table.js';
import type { Scenario } from '@session-resume-api/runtime/scenarios';

/** Renders the usage banner for a mock listening at `baseUrl` (no trailing slash). */
export function renderMockUsage(baseUrl: string, scenarios: readonly Scenario[]): string {
  return [
    '',
    `Session Resume API mock (Prism) at ${baseUrl}`,
    '',
    `  Base URL:   ${baseUrl}`,
    `  Sample key: Authorization: Bearer ${MOCK_SAMPLE_KEY}   (any non-empty token is accepted)`,
    `  Try:        curl -X POST ${baseUrl}/v1/sessions/sess_paused_1/resume -H 'Authorization: Bearer ${MOCK_SAMPLE_KEY}'`,
    '',
    'Scenarios (send the Prefer header; without it: 200 resumed, without Authorization: 401):',
    renderScenarioText(scenarios),
    '',
    'Stop with Ctrl+C.',
    '',
  ].join('\n');
}
