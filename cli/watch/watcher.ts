/**
 * The watcher: every exchange goes through the rules once, as it completes; each drift is
 * reported as it is found, and a report per rule is kept (a count, and the first few exchanges
 * that show a drift). It holds no exchange: only the bounded window the cross-exchange rules
 * need (docs/bounds.md).
 */
import { contract as shippedContract, type Contract } from '@session-resume-api/runtime/contract';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { redactWebhookUrl } from '@session-resume-api/runtime/redact-url';
import { checkWebhookSecret } from '@session-resume-api/runtime/webhook-secret';
import { Webhook } from 'standardwebhooks';
import { checkApiExchange, isPreflight, type ApiCheckContext } from './api-checks.js';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import { createContractView } from './contract-view.js';
import { pathOf, printableTarget, type Exchange } from './exchange.js';
import { createRecentMap } from './recent-map.js';
import { checkReplay, type RecordedAnswer } from './replay-check.js';
import { checkDelivery, type LastAttempt, type WebhookCheckContext } from './webhook-checks.js';
import { WATCH_RULES, type Finding, type WatchRuleId } from './watch-rules.js';

/** Options of `createWatcher`. */
export interface WatcherOptions {
  /**
   * The receiver's `whsec_` secret: deliveries' signatures are checked.
   * @defaultValue none: the signature rule is not observable
   */
  secret?: string;
  /**
   * Most recent keys each cross-exchange rule remembers (idempotency keys, webhook-ids, events).
   * @defaultValue 10000
   */
  window?: number;
  /**
   * Delay before each delivery attempt, in ms, the first included (a server's own schedule).
   * @defaultValue the contract's schedule
   */
  scheduleMs?: readonly number[];
  /**
   * Called with each drift as it is found.
   * @defaultValue none
   */
  onDrift?: (drift: Drift) => void;
  /**
   * The contract to check against.
   * @defaultValue the shipped spec/openapi.yaml
   */
  contract?: Contract;
}

/** The default of `WatcherOptions.window`: entries (idempotency keys, webhook-ids, events) each rule remembers. */
export const DEFAULT_WINDOW_ENTRIES = 10_000;

/** Exchanges shown per rule in a report. */
export const MAX_EVIDENCE = 5;

/** One exchange as a report shows it: never a secret. */
export interface ExchangeRef {
  method: string;
  path: string;
  status: number | null;
  time: string;
  fault: string;
}

/** A drift as it is found. */
export interface Drift extends ExchangeRef {
  rule: WatchRuleId;
}

/** One rule's grade, as `--json` prints it. */
export interface WatchEntry {
  rule: WatchRuleId;
  title: string;
  grade: 'pass' | 'drift' | 'n/o';
  evidence: string;
  /** The first exchanges that drifted (at most `MAX_EVIDENCE`). */
  exchanges: ExchangeRef[];
}

/** A watcher: feed it exchanges, ask for the report. */
export interface Watcher {
  observe(exchange: Exchange): Drift[];
  report(): WatchEntry[];
  /** Exchanges seen, those outside the contract's paths (not graded), and API requests that got no answer. */
  counts(): WatchCounts;
}

/** What a watcher has seen, for the closing line. */
export interface WatchCounts {
  exchanges: number;
  outside: number;
  /** Requests on a path of the contract that got no answer (a HAR entry without a response, a failed connection). */
  unanswered: number;
}

interface Tally {
  checked: number;
  drifts: number;
  shown: ExchangeRef[];
}

/** Creates a watcher. Throws `OptionsError` for a secret that is not `whsec_` + base64 or a bad window. */
export function createWatcher(options: WatcherOptions = {}): Watcher {
  const window = options.window ?? DEFAULT_WINDOW_ENTRIES;
  if (!Number.isInteger(window) || window < 1) throw new OptionsError('window must be a whole number of at least 1.', { option: 'window' });
  if (options.secret !== undefined) checkWebhookSecret('--secret', options.secret);
  const view = createContractView(options.contract ?? shippedContract);
  const api: ApiCheckContext = { view };
  const hooks: WebhookCheckContext = {
    view,
    scheduleMs: options.scheduleMs ?? WEBHOOK_DELIVERY_POLICY.retry.scheduleMs,
    signer: options.secret === undefined ? undefined : new Webhook(options.secret),
    idOfEvent: createRecentMap(window),
    lastAttempt: createRecentMap<LastAttempt>(window),
  };
  const recorded = createRecentMap<RecordedAnswer>(window);
  const tallies = new Map<WatchRuleId, Tally>(WATCH_RULES.map((r) => [r.id, { checked: 0, drifts: 0, shown: [] }]));
  let exchanges = 0;
  let outside = 0;
  const seen = createSeenCounts();

  const findingsOf = (exchange: Exchange): Finding[] | undefined => {
    if (exchange.kind === 'webhook') return checkDelivery(exchange, hooks);
    const match = view.matchPath(pathOf(exchange));
    if (!match || isPreflight(exchange)) return undefined;
    seen.add(`${exchange.method} ${match.template}`, exchange.status);
    if (exchange.status === undefined) return [];
    const answered = exchange as Exchange & { status: number };
    const findings = checkApiExchange(answered, match, api);
    const sessionId = match.params.session_id;
    const replay = sessionId === undefined ? undefined : checkReplay(answered, sessionId, recorded);
    return replay ? [...findings, replay] : findings;
  };

  return {
    observe(exchange) {
      exchanges += 1;
      const findings = findingsOf(exchange);
      if (!findings) {
        outside += 1;
        return [];
      }
      const drifts: Drift[] = [];
      for (const finding of findings) {
        const tally = tallies.get(finding.rule) as Tally;
        tally.checked += 1;
        if (finding.fault === undefined) continue;
        tally.drifts += 1;
        const ref = refOf(exchange, finding.fault);
        if (tally.shown.length < MAX_EVIDENCE) tally.shown.push(ref);
        const drift = { rule: finding.rule, ...ref };
        drifts.push(drift);
        options.onDrift?.(drift);
      }
      return drifts;
    },
    report: () =>
      WATCH_RULES.map(({ id, title }) => entryOf(id, title, tallies.get(id) as Tally, { signed: options.secret !== undefined, seen: seen.byOperation })),
    counts: () => ({ exchanges, outside, unanswered: seen.unanswered() }),
  };
}

/**
 * Requests seen on the contract's paths, per operation and status, for what a rule that saw
 * nothing of its own says (bounded: the contract's operations times 1,000 statuses).
 */
function createSeenCounts() {
  const byOperation = new Map<string, Map<string, number>>();
  let unanswered = 0;
  return {
    byOperation: byOperation as ReadonlyMap<string, ReadonlyMap<string, number>>,
    add(operation: string, status: number | undefined) {
      const statuses = byOperation.get(operation) ?? new Map<string, number>();
      const key = String(status ?? 'no answer');
      byOperation.set(operation, statuses.set(key, (statuses.get(key) ?? 0) + 1));
      if (status === undefined) unanswered += 1;
    },
    unanswered: () => unanswered,
  };
}

function refOf(exchange: Exchange, fault: string): ExchangeRef {
  // A receiver may keep its URL token in the last path segment of its webhook URL.
  const path = exchange.kind === 'webhook' ? redactWebhookUrl(exchange.target) : printableTarget(exchange.target);
  return { method: exchange.method, path, status: exchange.status ?? null, time: new Date(exchange.startedAt).toISOString(), fault };
}

/** Why a rule saw nothing to grade. */
const NOT_OBSERVED: Partial<Record<WatchRuleId, string>> = {
  'error-shape': 'no error answer was seen but those carrying not_paused (the not-paused rule grades them)',
  'idempotent-replay': 'no Idempotency-Key was repeated after its first answer',
  'retry-after': 'no answer with one of those statuses was seen',
  'rate-limit-headers': 'no answer carried rate-limit fields',
  'not-paused': 'no not_paused answer was seen',
  'webhook-id-stable': 'no delivery with a webhook-id and a whole event identity was seen',
  'attempt-spacing': 'no event was delivered again after a failed attempt',
};

/** `POST /v1/sessions/{session_id}/resume: 200 ×2, 409 ×7`: the answers seen per operation and status. */
export function formatSeen(seen: ReadonlyMap<string, ReadonlyMap<string, number>>): string {
  return [...seen].map(([label, statuses]) => `${label}: ${[...statuses].map(([status, count]) => `${status} ×${count}`).join(', ')}`).join('; ');
}

function entryOf(
  rule: WatchRuleId,
  title: string,
  tally: Tally,
  { signed, seen }: { signed: boolean; seen: ReadonlyMap<string, ReadonlyMap<string, number>> },
): WatchEntry {
  if (tally.drifts > 0) {
    const more = tally.drifts > tally.shown.length ? ` (first ${tally.shown.length} shown)` : '';
    const evidence = `${tally.drifts} of ${tally.checked} drifted${more}: ${tally.shown.map(formatRef).join(' | ')}`;
    return { rule, title, grade: 'drift', evidence, exchanges: tally.shown };
  }
  if (tally.checked > 0) return { rule, title, grade: 'pass', evidence: `${tally.checked} checked, none drifted`, exchanges: [] };
  const webhookRule = rule.startsWith('webhook') || rule === 'attempt-spacing';
  if (rule === 'webhook-signature' && !signed)
    return { rule, title, grade: 'n/o', evidence: 'not observed: give --secret to verify signatures', exchanges: [] };
  if (webhookRule) return { rule, title, grade: 'n/o', evidence: `not observed: ${NOT_OBSERVED[rule] ?? 'no webhook delivery was seen'}`, exchanges: [] };
  if (seen.size === 0) return { rule, title, grade: 'n/o', evidence: 'not observed: no request on a path of the contract was seen', exchanges: [] };
  const why = NOT_OBSERVED[rule] ?? 'no answer on a path of the contract was seen';
  return { rule, title, grade: 'n/o', evidence: `not observed: ${why} (seen: ${formatSeen(seen)})`, exchanges: [] };
}

/** `POST /v1/sessions/s/resume 409 2026-…Z: fault`. */
export function formatRef(ref: ExchangeRef): string {
  return `${ref.method} ${ref.path} ${ref.status ?? 'no answer'} ${ref.time}: ${ref.fault}`;
}

const MARK = { pass: 'pass', drift: 'DRIFT', 'n/o': 'n/o' } as const;

/** One report line: mark, rule id, evidence. */
export function formatWatchLine(entry: WatchEntry): string {
  return `${MARK[entry.grade].padEnd(5)} ${entry.rule.padEnd(19)} ${entry.evidence}`;
}

/** The live line of one drift. */
export function formatDriftLine(drift: Drift): string {
  return `DRIFT ${drift.rule.padEnd(19)} ${formatRef(drift)}`;
}

/** The closing line. */
export function formatWatchSummary(entries: readonly WatchEntry[], counts: WatchCounts): string {
  const count = (grade: WatchEntry['grade']) => entries.filter((e) => e.grade === grade).length;
  const unanswered = counts.unanswered > 0 ? `; ${counts.unanswered} got no answer` : '';
  return `${entries.length} rules over ${counts.exchanges} exchanges (${counts.outside} outside the contract, not graded${unanswered}): ${count('pass')} pass, ${count('drift')} drift, ${count('n/o')} not observed (n/o)`;
}
