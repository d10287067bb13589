/**
 * `client grade`: serves the resume operation with scripted faults per session id, lets the
 * client under test resume every id (run by the grader, or driven by the user), then grades
 * every rule of the list (client-rules.ts) by what reached the server: pass, fail or
 * n/o (not observable), with the evidence and, for a failure, what the real service does about it.
 */
import { randomBytes } from 'node:crypto';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { GradeEntry, Verdict } from '../grade-report.js';
import { UsageError } from '../program.js';
import { checkBackoff } from './backoff-check.js';
import { CLIENT_RULES, type ClientRuleId } from './client-rules.js';
import { startFaultServer, type FaultServer } from './fault-server.js';
import type { CheckContext } from './grade-observations.js';
import { checkAnswerLost, checkIdempotencyKey } from './idempotency-checks.js';
import type { Observations, RunEnd } from './observations.js';
import { checkNoRetry4xx, checkNotPaused } from './outcome-checks.js';
import { checkRequest } from './request-check.js';
import { checkRetry429, checkRetry500, checkRetry503, checkRetryAfterCap, checkRetryNetwork } from './retry-checks.js';
import { runClientCommand, waitForStop } from './run-client.js';
import { createScenarios, type FaultSettings, type Scenario } from './scenarios.js';
import { checkTimeout } from './timeout-check.js';

/** The check of each rule: a rule added to the list without one does not compile. */
const CHECKS: Record<ClientRuleId, (ctx: CheckContext) => Verdict> = {
  request: checkRequest,
  'retry-503': checkRetry503,
  'retry-429': checkRetry429,
  'retry-after-cap': checkRetryAfterCap,
  'retry-network': checkRetryNetwork,
  'retry-500': checkRetry500,
  'idempotency-key': checkIdempotencyKey,
  'answer-lost': checkAnswerLost,
  'no-retry-4xx': checkNoRetry4xx,
  'not-paused': checkNotPaused,
  backoff: checkBackoff,
  timeout: checkTimeout,
};

/** Whether `id` names a rule of the list. */
export function isClientRuleId(id: string): id is ClientRuleId {
  return Object.hasOwn(CHECKS, id);
}

/** How long the grader holds a hung attempt beyond the policy's attempt deadline before resetting it, in ms. */
export const HANG_GRACE_MS = 2000;

/** Options of `runClientGrade`. */
export interface ClientGradeOptions extends Partial<FaultSettings> {
  /**
   * Shell command of the client under test; absent: `--serve`, the user drives the client.
   * @defaultValue none
   */
  run?: string;
  /**
   * Port of the grader's server on 127.0.0.1.
   * @defaultValue 0 (a free port)
   */
  port?: number;
  /**
   * Longest run, in ms; a call unfinished by then is not observable (or, retrying still, a failure).
   * @defaultValue 180 000 with `run`, 600 000 without
   */
  timeLimitMs?: number;
}

/**
 * The defaults of the fault settings. Retry-After 3 s (503) and 4 s (429): longer than every
 * common fixed wait (0, 0.1, 0.25, 0.5, 1 and 2 s) and than the first retry's back-off bound, so a
 * client that ignores Retry-After cannot meet them by chance, and different, so one fixed wait
 * of 3 s still misses the second. Twenty back-off calls: the spread test's false failure of a
 * full-jitter client is then 5.4 × 10⁻⁷ per retry number (backoff-check.ts).
 */
export const FAULT_DEFAULTS: FaultSettings = { unavailableRetryAfterSeconds: 3, rateLimitedRetryAfterSeconds: 4, backoffCalls: 20 };

/** What the run reports as it goes, and the environment the client inherits. */
export interface ClientGradeIo {
  /** The variables of the run; the environment of `--run`'s command is `env(vars)`. */
  env: (vars: Record<string, string>) => Record<string, string | undefined>;
  /** `--serve`: the variables to give the client, once the server listens. */
  onServe: (vars: Record<string, string>, timeLimitMs: number) => void;
  /** Output of the client under test. */
  onClientOutput: (chunk: Buffer) => void;
}

async function listen(options: ClientGradeOptions, scenarios: readonly Scenario[]): Promise<FaultServer> {
  try {
    return await startFaultServer({ scenarios, port: options.port ?? 0, hangLimitMs: RESUME_RETRY_POLICY.attempts.attemptTimeoutMs + HANG_GRACE_MS });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new UsageError(`cannot listen on 127.0.0.1:${options.port} (${code}): give a free --port, or 0 for any.`, { cause: error });
    throw error;
  }
}

/** Serves the faults and waits for the run to end; resolves to everything seen. */
export async function observeClient(options: ClientGradeOptions, io: ClientGradeIo): Promise<Observations> {
  const scenarios = createScenarios({ ...FAULT_DEFAULTS, ...definedOnly(options) });
  const server = await listen(options, scenarios);
  const apiKey = `grade_${randomBytes(16).toString('hex')}`;
  const vars = {
    SESSION_RESUME_BASE_URL: server.baseUrl,
    SESSION_RESUME_API_KEY: apiKey,
    SESSION_RESUME_SESSION_IDS: scenarios.map((s) => s.sessionId).join(' '),
  };
  const timeLimitMs = options.timeLimitMs ?? (options.run === undefined ? 600_000 : 180_000);
  const ending = { timeLimitMs, beforeEnd: () => server.close() };
  let end: RunEnd;
  try {
    if (options.run === undefined) io.onServe(vars, timeLimitMs);
    end = options.run === undefined ? await waitForStop(ending) : await runClientCommand(options.run, io.env(vars), { ...ending, onOutput: io.onClientOutput });
  } finally {
    await server.close();
  }
  return {
    scenarios,
    attempts: server.attempts,
    refused: server.refused(),
    end,
    apiKey,
    hangLimitMs: RESUME_RETRY_POLICY.attempts.attemptTimeoutMs + HANG_GRACE_MS,
  };
}

/** Grades `obs` rule by rule, in the list's order (`only`: those rules alone). */
export function gradeObservations(obs: Observations, only?: readonly ClientRuleId[]): GradeEntry<ClientRuleId>[] {
  const ctx: CheckContext = { obs, policy: RESUME_RETRY_POLICY };
  return CLIENT_RULES.filter((rule) => !only || only.includes(rule.id)).map(({ id, title, broken }) => {
    const verdict = CHECKS[id](ctx);
    return { rule: id, title, ...verdict, ...(verdict.grade === 'fail' ? { evidence: `${verdict.evidence} ${broken}` } : {}) };
  });
}

/** One report line; a run that ended at the time limit says so first. */
export function formatRunEnd(end: RunEnd): string | undefined {
  if (end.kind === 'time-limit') return `The run reached its time limit (${end.afterMs} ms); calls unfinished then are graded n/o or FAIL.`;
  return undefined;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
