/**
 * Breaking-change check between two versions of the OpenAPI document, with api-smart-diff
 * (it classifies OpenAPI 3.1 changes as breaking, non-breaking, annotation or unclassified).
 * One rule is added: removing a webhook (or its operation) is breaking, since the library
 * leaves changes under `webhooks` unclassified. The behaviour policies (x-retry-policy,
 * x-delivery-policy), which the library leaves unclassified too, are classified by
 * behaviour-changes.ts.
 */
import { apiCompare, type Diff } from 'api-smart-diff';
import { classifyBehaviourChanges, isPolicyPath, type BehaviourChange } from './behaviour-changes.js';

/** One change, as a reviewer reads it. */
export interface SpecChange {
  /** JSON path of the changed node, joined with "/". */
  path: string;
  /** What changed, e.g. "[Removed] Response 404". */
  description: string;
}

/** Changes between two documents, by kind. */
export interface SpecComparison {
  breaking: SpecChange[];
  nonBreaking: SpecChange[];
  /** Unclassified changes: listed for the reviewer, never fail the check. */
  unclassified: SpecChange[];
  /** Changes of x-retry-policy and x-delivery-policy, each classified with the side it breaks (behaviour-changes.ts). */
  behaviour: BehaviourChange[];
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function toChange(diff: Diff): SpecChange {
  return { path: diff.path.map(String).join('/'), description: diff.description || `${diff.action}` };
}

/** Removing a webhook, or one of its operations, breaks every receiver (source spec §6); the library leaves it unclassified. */
export function isRemovedWebhook(diff: Diff): boolean {
  if (diff.path[0] !== 'webhooks' || diff.action !== 'remove') return false;
  return diff.path.length === 1 || diff.path.length === 2 || (diff.path.length === 3 && HTTP_METHODS.has(String(diff.path[2])));
}

/** Compares `before` and `after` (parsed OpenAPI documents); annotations and top-level `x-` extensions are left out. */
export function compareSpecs(before: unknown, after: unknown): SpecComparison {
  const { diffs } = apiCompare(structuredClone(before) as object, structuredClone(after) as object);
  const result: SpecComparison = { breaking: [], nonBreaking: [], unclassified: [], behaviour: classifyBehaviourChanges(before, after) };
  const seen = new Set<string>();
  for (const diff of diffs) {
    // Top-level extensions (x-decisions) document the contract; they are not wire shapes.
    if (String(diff.path[0]).startsWith('x-') || isPolicyPath(diff.path)) continue;
    const kind = isRemovedWebhook(diff) ? 'breaking' : diff.type;
    const change = toChange(diff);
    const key = `${kind} ${change.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (kind === 'breaking') result.breaking.push(change);
    else if (kind === 'non-breaking') result.nonBreaking.push(change);
    else if (kind === 'unclassified') result.unclassified.push(change);
  }
  return result;
}

/** True when the major part of `after` (semver) is greater than that of `before`. */
export function isMajorBump(before: string, after: string): boolean {
  const major = (v: string) => Number(/^v?(\d+)\./.exec(v.trim())?.[1] ?? NaN);
  const a = major(before);
  const b = major(after);
  return Number.isFinite(a) && Number.isFinite(b) && b > a;
}
