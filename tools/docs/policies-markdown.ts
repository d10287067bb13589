/**
 * Renders the behaviour extensions of spec/openapi.yaml (the resume operation's `x-retry-policy`,
 * the session webhook's `x-delivery-policy`) as Markdown tables, one row per field with its
 * value: a section of the HTML reference and of docs/decisions.md. What each field means is
 * docs/spec-review.md's ("Behaviour extensions").
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A document with the two extensions where the generator reads them. */
export interface PolicyDocument {
  paths?: Record<string, { post?: Record<string, unknown> } | undefined>;
  webhooks?: Record<string, { post?: Record<string, unknown> } | undefined>;
}

const UNITS: ReadonlyArray<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
];

/** A duration in ms said in the largest unit that divides it, e.g. 300000 → "5 min". */
function duration(ms: number): string {
  const unit = UNITS.find(([size]) => ms >= size && ms % size === 0);
  return unit ? `${ms / unit[0]} ${unit[1]}` : `${ms} ms`;
}

function show(key: string, value: Json): string {
  if (Array.isArray(value)) return value.map((v) => show(key, v)).join(', ');
  if (typeof value === 'number' && key.endsWith('Ms')) return `${value} (${duration(value)})`;
  return String(value);
}

/** Every leaf of `value` as [dotted path, value], in document order. */
function leaves(value: Json, prefix = ''): Array<[string, Json]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

function table(name: string, where: string, policy: Json | undefined): string[] {
  if (policy === undefined) return [`\`${name}\` is missing from ${where}.`, ''];
  const rows = leaves(policy).map(([path, value]) => `| \`${path}\` | ${show(path.split('.').at(-1) ?? '', value)} |`);
  return [`\`${name}\` on ${where}:`, '', '| Field | Value |', '| --- | --- |', ...rows, ''];
}

/** The two policies as tables, under `heading`, with a line saying where they come from. */
export function renderPoliciesMarkdown(document: PolicyDocument, heading = '##'): string {
  const retry = document.paths?.['/v1/sessions/{session_id}/resume']?.post?.['x-retry-policy'] as Json | undefined;
  const delivery = document.webhooks?.sessionEvent?.post?.['x-delivery-policy'] as Json | undefined;
  return [
    `${heading} Behaviour policies`,
    '',
    'The behaviour the contract states in a form programs read (the client, the delivery engine, the sandbox, `listen` and `webhook grade` take their numbers from it; docs/spec-review.md says what each field means). The decisions below say why.',
    '',
    ...table('x-retry-policy', 'POST /v1/sessions/{session_id}/resume', retry),
    ...table('x-delivery-policy', 'the sessionEvent webhook', delivery),
  ].join('\n');
}
