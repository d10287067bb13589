/** Renders the spec's `x-decisions` list as a Markdown section for the HTML reference. */

/** One recorded decision (spec/openapi.yaml, `x-decisions`). */
export interface Decision {
  id: string;
  topic: string;
  source: string;
  chosen: string;
  'client-tolerance': string;
}

const text = (value: string): string => value.replace(/\s*\n\s*/g, ' ').trim();

/**
 * A "Decision record" heading and one short section per decision, in document order. Sections,
 * not a table: Redoc's middle column is too narrow for five columns of prose (the id wrapped a
 * letter a line and two columns were cut off).
 */
export function renderDecisionsMarkdown(decisions: readonly Decision[]): string {
  const sections = decisions.flatMap((d) => [
    `### ${d.id}: ${text(d.topic)}`,
    '',
    `- **The source says:** ${text(d.source)}`,
    `- **This document chose:** ${text(d.chosen)}`,
    `- **The client tolerates:** ${text(d['client-tolerance'])}`,
    '',
  ]);
  return [
    '## Decision record',
    '',
    'Every point the source description leaves open, and what this document decided (rendered from `x-decisions` in spec/openapi.yaml).',
    '',
    ...sections,
  ].join('\n');
}
