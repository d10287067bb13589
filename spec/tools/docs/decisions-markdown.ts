/** Renders the spec's `x-decisions` list as a Markdown section for the HTML reference. */

/** One recorded decision (spec/openapi.yaml, `x-decisions`). */
export interface Decision {
  id: string;
  topic: string;
  source: string;
  chosen: string;
  'client-tolerance': string;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** A "Decision record" heading and one table row per decision, in document order. */
export function renderDecisionsMarkdown(decisions: readonly Decision[]): string {
  const rows = decisions.map(
    (d) => `| \`${d.id}\` | ${cell(d.topic)} | ${cell(d.source)} | ${cell(d.chosen)} | ${cell(d['client-tolerance'])} |`,
  );
  return [
    '## Decision record',
    '',
    'Rendered from `x-decisions` in spec/openapi.yaml.',
    '',
    '| Id | Topic | The source says | This document chose | The client tolerates |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
