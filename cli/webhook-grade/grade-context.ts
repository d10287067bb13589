/** What every check of `webhook grade` shares: URLs (instances of one receiver), settings, fresh events, one way to deliver. */
import { randomBytes } from 'node:crypto';
import { deliverEvent, DELIVERY_TIMEOUT_MS, type DeliveryResult } from '@session-resume-api/runtime/delivery/deliver-event';
import type { DeliveryRuleId } from '@session-resume-api/runtime/delivery/delivery-rules';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import type { Verdict } from '../grade-report.js';
import { createCliSigner, newWebhookId, withSigningAdvice, type AttemptHeaders } from '../webhook-signing.js';
import { readObserved, type ObservedCounts } from './observe.js';

/** Options of `runWebhookGrade`. */
export interface GradeOptions {
  /**
   * Allow loopback receivers, plain http:// included, and skip certificate checks for them.
   * @defaultValue false
   */
  insecureLocalhost?: boolean;
  /**
   * CA certificate(s) to trust instead of the system roots (PEM).
   * @defaultValue the system roots
   */
  ca?: string | Buffer;
  /**
   * The receiver's `whsec_` secret: every delivery is signed and the signature rules are checked.
   * @defaultValue unsigned, those rules not observable
   */
  secret?: string;
  /**
   * Deadline of each delivery in ms.
   * @defaultValue 5000 (the service's)
   */
  timeoutMs?: number;
  /**
   * Concurrent distinct deliveries of the burst.
   * @defaultValue 50 (the service sends up to 50 at once per instance)
   */
  burst?: number;
  /**
   * Copies of one event sent at the same moment.
   * @defaultValue 5
   */
  copies?: number;
  /**
   * Wait before the late duplicate, in ms.
   * @defaultValue 2000
   */
  delayMs?: number;
  /**
   * URL answering the processed counts (docs/cli.md, "The --observe format").
   * @defaultValue none: judged by the answers' `duplicate`
   */
  observe?: string;
  /**
   * How long the observe URL may take to count the events processed after their answer, in ms.
   * @defaultValue 3000
   */
  settleMs?: number;
  /**
   * Grade only these rules (`https` is always checked first).
   * @defaultValue every rule
   */
  only?: readonly DeliveryRuleId[];
}

/** The settings with every default filled in. */
export type GradeSettings = GradeOptions & Required<Pick<GradeOptions, 'timeoutMs' | 'burst' | 'copies' | 'delayMs' | 'settleMs'>>;

/** The defaults of `GradeOptions`. */
export const GRADE_DEFAULTS = { timeoutMs: DELIVERY_TIMEOUT_MS, burst: 50, copies: 5, delayMs: 2000, settleMs: 3000 } as const;

/** A SessionEvent, or another payload form the service may send. */
export type Payload = Readonly<Record<string, unknown>>;

/** One event delivered several times, and every answer, kept for the dedupe checks. */
export interface DuplicateGroup {
  /** For people: `again and after 2s`, `5 concurrent copies`. */
  label: string;
  event: SessionEvent;
  webhookId: string;
  results: DeliveryResult[];
}

export type { Verdict } from '../grade-report.js';

/** Shared by the checks of one run. */
export interface GradeContext {
  urls: readonly string[];
  settings: GradeSettings;
  /** Its own session id, timestamp now. */
  newEvent(label: string): SessionEvent;
  /** Delivers `body` to `urls[target]`, signed with the settings' secret unless `headers` says otherwise; `webhookId` repeats an event. */
  deliver(target: number, body: Payload, how?: { webhookId?: string; headers?: AttemptHeaders }): Promise<DeliveryResult>;
  /** Filled by the duplicate checks: copies at one instance (`repeated` is the one sent again later too), and copies across instances. */
  groups: { sameInstance: DuplicateGroup[]; otherInstance?: DuplicateGroup; repeated?: DuplicateGroup };
  verdicts: Map<DeliveryRuleId, Verdict>;
  /** Reads the processed counts of the `--observe` URL (docs/cli.md, "The --observe format"). */
  readObserved(url: string, timeoutMs: number): Promise<ObservedCounts>;
  /** Every delivery of the run, in the order they ended (at most `burst` plus a few dozen). */
  results: DeliveryResult[];
  /** Whether any delivery got an answer; a receiver that gave none is sent no more. */
  answered: boolean;
  /** The last delivery that got no answer, while none was answered. */
  unanswered?: Extract<DeliveryResult, { delivered: false }>;
}

/** Throws `UsageError` for a secret that is not `whsec_` + base64. */
export function createGradeContext(urls: readonly string[], options: GradeOptions): GradeContext {
  const settings: GradeSettings = { ...GRADE_DEFAULTS, ...definedOnly(options) };
  const signer = createCliSigner(settings.secret);
  const run = randomBytes(4).toString('hex');
  const ctx: GradeContext = {
    urls,
    settings,
    newEvent: (label) => ({ event: 'session.resumed', session: { id: `sess_grade_${run}_${label}` }, timestamp: new Date().toISOString() }),
    async deliver(target, body, how = {}) {
      const headers = how.headers ?? signer(how.webhookId ?? newWebhookId());
      // JSON.stringify(body) as is: the other payload forms go unchanged.
      const result = await deliverEvent(urls[target] as string, body as SessionEvent, {
        insecureLocalhost: settings.insecureLocalhost,
        ca: settings.ca,
        timeoutMs: settings.timeoutMs,
        headers,
      });
      ctx.results.push(result);
      if (result.delivered || result.status !== undefined) ctx.answered = true;
      else if (!ctx.answered) ctx.unanswered = result;
      return withSigningAdvice(result, settings.secret !== undefined);
    },
    groups: { sameInstance: [] },
    verdicts: new Map(),
    readObserved,
    results: [],
    answered: false,
  };
  return ctx;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
