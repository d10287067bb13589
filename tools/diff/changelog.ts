/**
 * The reviewer's changelog of spec/openapi.yaml (`npm run spec:diff -- <ref> --format markdown`):
 * every change between two versions of the document, as api-smart-diff classifies it (breaking
 * first, then non-breaking, deprecated, documentation, unclassified), every change of the behaviour
 * policies with the side it breaks and why (behaviour-changes.ts), and the x-decisions entries
 * added, changed or removed, rendered as Markdown ready to paste into a pull request.
 */
import { apiCompare, type Diff } from 'api-smart-diff';
import { classifyBehaviourChanges, isPolicyPath, type BehaviourChange } from './behaviour-changes.js';
import { isMajorBump, isRemovedWebhook } from './compare-specs.js';

/** How a change affects clients, in the order a reviewer reads them. */
export const CHANGE_KINDS = ['breaking', 'non-breaking', 'deprecated', 'annotation', 'unclassified'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const ACTIONS = { add: 'Added', remove: 'Removed', replace: 'Changed', rename: 'Renamed' } as const;

/** One change to the wire contract. */
export interface ChangelogEntry {
  kind: ChangeKind;
  action: (typeof ACTIONS)[keyof typeof ACTIONS];
  /** Where, readable: "POST /v1/… · responses.404" or "components.headers.RateLimit". */
  where: string;
  /** What, in words (api-smart-diff's description without its [Action] prefix, or the values). */
  what: string;
}

/** One x-decisions entry added, changed (naming the fields) or removed. */
export interface DecisionChange {
  action: 'Added' | 'Changed' | 'Removed';
  id: string;
  topic: string;
  /** The fields that differ, for a changed entry. */
  fields: string[];
}

/** Everything that changed between two documents. */
export interface Changelog {
  versions: { before: string; after: string };
  entries: ChangelogEntry[];
  /** Changes of the behaviour policies, each with the side it breaks and why (behaviour-changes.ts). */
  behaviour: BehaviourChange[];
  decisions: DecisionChange[];
}

type Doc = { info?: { version?: unknown }; 'x-decisions'?: unknown };

const HEADINGS: Record<ChangeKind, string> = {
  breaking: 'Breaking',
  'non-breaking': 'Non-breaking',
  deprecated: 'Deprecated',
  annotation: 'Documentation only',
  unclassified: 'Unclassified (not checked by CI)',
};

/** Renders a JSON path: operations as "METHOD /path", the rest joined with dots. */
function where(path: Diff['path']): string {
  const parts = path.map(String);
  if ((parts[0] === 'paths' || parts[0] === 'webhooks') && parts.length >= 3) {
    const target = parts[0] === 'paths' ? parts[1] : `webhook ${parts[1]}`;
    const rest = parts.slice(3).join('.');
    return `${parts[2]!.toUpperCase()} ${target}${rest ? ` · ${rest}` : ''}`;
  }
  return parts.join('.');
}

/** A value for a table cell: JSON, at most 60 characters. */
function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function what(diff: Diff): string {
  const described = diff.description?.replace(/^\[[A-Za-z]+\]\s*/, '').trim();
  // An added or removed object (a headers map, a schema) is named by its members.
  const value: unknown = diff.action === 'remove' ? diff.before : diff.after;
  const members = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const named = diff.action !== 'replace' && members.length && members.length <= 6 ? ` (${members.join(', ')})` : '';
  if (described) return described + named;
  const key = String(diff.path.at(-1) ?? '');
  if (diff.action === 'replace') return `\`${key}\`: \`${short(diff.before)}\` → \`${short(diff.after)}\``;
  if (diff.action === 'add' && typeof diff.after !== 'object') return `\`${key}\`: \`${short(diff.after)}\``;
  return `\`${key}\``;
}

function decisionChanges(before: unknown, after: unknown): DecisionChange[] {
  const byId = (list: unknown) => new Map((Array.isArray(list) ? (list as Record<string, unknown>[]) : []).map((d) => [String(d.id), d] as const));
  const old = byId(before);
  const now = byId(after);
  const changes: DecisionChange[] = [];
  for (const [id, d] of now) {
    const was = old.get(id);
    const topic = String(d.topic ?? '');
    if (!was) changes.push({ action: 'Added', id, topic, fields: [] });
    else {
      const keys = [...new Set([...Object.keys(was), ...Object.keys(d)])];
      const fields = keys.filter((k) => JSON.stringify(was[k]) !== JSON.stringify(d[k]));
      if (fields.length) changes.push({ action: 'Changed', id, topic, fields });
    }
  }
  for (const [id, d] of old) if (!now.has(id)) changes.push({ action: 'Removed', id, topic: String(d.topic ?? ''), fields: [] });
  return changes;
}

/**
 * Lists every change from `before` to `after` (parsed OpenAPI documents). Top-level `x-`
 * extensions are left to the decisions list; one entry per kind and path.
 * @example
 * const log = listChanges(parse(oldYaml), parse(newYaml));
 * log.entries.filter((e) => e.kind === 'breaking');
 */
export function listChanges(before: unknown, after: unknown): Changelog {
  const { diffs } = apiCompare(structuredClone(before) as object, structuredClone(after) as object);
  const seen = new Set<string>();
  const entries: ChangelogEntry[] = [];
  for (const diff of diffs) {
    if (String(diff.path[0]).startsWith('x-') || isPolicyPath(diff.path)) continue;
    const kind: ChangeKind = isRemovedWebhook(diff) ? 'breaking' : diff.type;
    const entry = { kind, action: ACTIONS[diff.action], where: where(diff.path), what: what(diff) };
    const key = `${kind} ${diff.path.join('/')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(entry);
  }
  entries.sort((a, b) => CHANGE_KINDS.indexOf(a.kind) - CHANGE_KINDS.indexOf(b.kind));
  const version = (doc: unknown) => String((doc as Doc | null)?.info?.version ?? '?');
  return {
    versions: { before: version(before), after: version(after) },
    entries,
    behaviour: classifyBehaviourChanges(before, after),
    decisions: decisionChanges((before as Doc | null)?.['x-decisions'], (after as Doc | null)?.['x-decisions']),
  };
}

/** Escapes a table cell: pipes and line breaks would end it. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/**
 * Renders the changelog as Markdown: a summary line, whether breaking changes are allowed (a new
 * major info.version, x-decisions: versioning), one table per kind with breaking changes first,
 * then the decisions.
 * @example console.log(renderChangelogMarkdown(listChanges(before, after), 'main'));
 */
export function renderChangelogMarkdown(log: Changelog, ref: string): string {
  const { before, after } = log.versions;
  const count = (kind: ChangeKind) => log.entries.filter((e) => e.kind === kind).length;
  const summary = CHANGE_KINDS.filter(count).map((k) => `${count(k)} ${HEADINGS[k].split(' (')[0]!.toLowerCase()}`);
  const behaviourBreaks = log.behaviour.filter((c) => c.kind === 'breaking').length;
  if (log.behaviour.length) summary.push(`${log.behaviour.length} behaviour (${behaviourBreaks} breaking)`);
  const lines = [`## API changes since \`${ref}\``, ''];
  lines.push(`\`spec/openapi.yaml\` info.version ${before} → ${after}: ${summary.join(', ') || 'no wire change'}.`);
  if (count('breaking') || behaviourBreaks) {
    lines.push(
      '',
      isMajorBump(before, after)
        ? '> Breaking changes, allowed: info.version has a new major version.'
        : '> **Breaking changes without a new major info.version**: bump the major version or undo them (CI fails).',
    );
  }
  for (const kind of CHANGE_KINDS) {
    const rows = log.entries.filter((e) => e.kind === kind);
    if (!rows.length) continue;
    lines.push('', `### ${HEADINGS[kind]} (${rows.length})`, '', '| | Change | Where |', '|---|---|---|');
    for (const e of rows) lines.push(`| ${e.action} | ${cell(e.what)} | \`${cell(e.where)}\` |`);
  }
  if (log.behaviour.length) {
    lines.push(
      '',
      `### Behaviour: x-retry-policy and x-delivery-policy (${log.behaviour.length})`,
      '',
      '| | Field | Change | Breaks | Why |',
      '|---|---|---|---|---|',
    );
    for (const c of log.behaviour) {
      lines.push(`| ${c.action} | \`${c.policy} ${cell(c.field)}\` | ${cell(c.what)} | ${c.breaks ? `**${c.breaks}**` : 'compatible'} | ${cell(c.reason)} |`);
    }
  }
  if (log.decisions.length) {
    lines.push('', `### Decisions in x-decisions (${log.decisions.length})`, '', '| | Decision | Topic |', '|---|---|---|');
    for (const d of log.decisions) {
      const fields = d.fields.length ? ` (${d.fields.join(', ')})` : '';
      lines.push(`| ${d.action} | \`${d.id}\`${fields} | ${cell(d.topic)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
