/** Renders the spec's `x-decisions` list as Markdown: a section of the HTML reference, and docs/decisions.md. */
import { renderPoliciesMarkdown, type PolicyDocument } from './policies-markdown.js';

/** One recorded decision (spec/openapi.yaml, `x-decisions`). */
export interface Decision {
  id: string;
  topic: string;
  source: string;
  chosen: string;
  'client-tolerance': string;
}

/** How `renderDecisionsMarkdown` lays the sections out. */
export interface DecisionsMarkdownOptions {
  /** Heading of each decision (default `###`). */
  heading?: string;
}

/** The label of each decision's first part, its `source` field; docs.test.ts lets that line cite sections. */
export const SOURCE_LABEL = "The service's description says:";

const text = (value: string): string => value.replace(/\s*\n\s*/g, ' ').trim();

/**
 * One short section per decision, in document order, with its three parts: what the service's
 * description says (its sections), what this document chose, how the client tolerates the
 * service choosing otherwise. Sections, not a table: Redoc's middle column is too narrow for
 * five columns of prose (the id wrapped a letter a line and two columns were cut off).
 */
export function renderDecisionsMarkdown(decisions: readonly Decision[], options: DecisionsMarkdownOptions = {}): string {
  const { heading = '###' } = options;
  return decisions
    .flatMap((d) => [
      `${heading} ${d.id}: ${text(d.topic)}`,
      '',
      `- **${SOURCE_LABEL}** ${text(d.source)}`,
      `- **This document chose:** ${text(d.chosen)}`,
      `- **The client tolerates:** ${text(d['client-tolerance'])}`,
      '',
    ])
    .join('\n');
}

/** The Markdown of the reference's "Decision record" section (a tag after the operations and the webhook). */
export function renderDecisionRecordSection(decisions: readonly Decision[]): string {
  return [
    'Every point the service description leaves open, and what this document decided (rendered from `x-decisions` in spec/openapi.yaml).',
    '',
    renderDecisionsMarkdown(decisions),
  ].join('\n');
}

/** The whole docs/decisions.md page: a title, how it is made, the behaviour policies, then one section per decision with its source. */
export function renderDecisionsPage(decisions: readonly Decision[], document: PolicyDocument = {}): string {
  return [
    '# Decision record',
    '',
    '<!-- Generated from x-retry-policy, x-delivery-policy and x-decisions in spec/openapi.yaml by `npm run docs:decisions`; a test fails when it is out of date. -->',
    '',
    "Every point the service's own description leaves open, and what this toolkit decided. Each entry",
    'gives what that description says (its sections, for reviewers who have it), what',
    'spec/openapi.yaml chose, and how the client and the receiver tolerate the real service',
    'choosing otherwise. The same records close the HTML reference at `/docs`.',
    '',
    renderPoliciesMarkdown(document),
    renderDecisionsMarkdown(decisions, { heading: '##' }),
  ].join('\n');
}
