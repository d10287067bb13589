/**
 * Runs the conformance checks against a target over real HTTP and returns one result per
 * check. Programmatic entry: tests and integrators call `runConformance(options)`.
 */
import { contract as defaultContract, type Contract } from '@session-resume-api/runtime/contract';
import { RESUME_PATH, resumeUrl } from '@session-resume-api/runtime/resume-path';
import { createConformanceChecks, type CheckRequest, type CheckStep, type ConformanceCheck } from './conformance-checks.js';
import { checkConformanceOptions, type ConformanceOptions } from './conformance-options.js';
import { validateWebhookUrl } from '@session-resume-api/runtime/webhook-url';
import { corsProblems, rateLimitProblems } from './header-expectations.js';
import { createSandboxClient } from 'session-resume-api/sandbox';
import { createResponseCheck, type ReceivedAnswer } from './response-check.js';

/** Result of one check. */
export interface CheckResult {
  name: string;
  outcome: 'pass' | 'fail' | 'skip';
  /** What was seen (statuses) or why it failed or was skipped. */
  detail: string;
}

/** Result of a run: `ok` is true when no check failed. */
export interface ConformanceReport {
  ok: boolean;
  target: string;
  results: CheckResult[];
}

/** Runs every check in order, after the sandbox reset when asked (defaults: mode live, timeout 10 s). Throws on invalid options. */
export async function runConformance(options: ConformanceOptions, contract: Contract = defaultContract): Promise<ConformanceReport> {
  const checked = checkConformanceOptions(options);
  if (typeof checked === 'string') throw new TypeError(checked);
  const checkAnswer = createResponseCheck(contract, RESUME_PATH, 'post');
  const results: CheckResult[] = checked.reset ? [await resetSandboxWorld(checked)] : [];
  for (const check of createConformanceChecks(checked)) results.push(await runCheck(check, checked, checkAnswer));
  if (checked.webhookUrl !== undefined) results.push(checkWebhookUrl(checked.webhookUrl));
  return { ok: results.every((r) => r.outcome !== 'fail'), target: checked.baseUrl, results };
}

async function runCheck(check: ConformanceCheck, options: ConformanceOptions, checkAnswer: (answer: ReceivedAnswer) => string[]): Promise<CheckResult> {
  if (check.skip) return { name: check.name, outcome: 'skip', detail: check.skip };
  const answers: ReceivedAnswer[] = [];
  for (const [index, step] of check.steps.entries()) {
    let answer: ReceivedAnswer;
    try {
      answer = await send(step.request, options);
    } catch (error) {
      return { name: check.name, outcome: 'fail', detail: `step ${index + 1}: request failed: ${(error as Error).message}` };
    }
    answers.push(answer);
    const problems = [...checkAnswer(answer), ...expectationProblems(step, answer, answers)];
    if (problems.length) {
      if (step.hint && answer.text.includes(step.hint.when)) problems.push(step.hint.say);
      return { name: check.name, outcome: 'fail', detail: `step ${index + 1} (${answer.status}): ${problems.join('; ')}` };
    }
  }
  return { name: check.name, outcome: 'pass', detail: answers.map((a) => a.status).join(' → ') };
}

/** `--reset`: the key's sandbox world back to its seed set, through the sandbox's control API. */
async function resetSandboxWorld(options: ConformanceOptions): Promise<CheckResult> {
  const name = 'sandbox world reset to its seed set (POST /_sandbox/reset, for --reset)';
  const fix = '--reset needs a sandbox target (npm run sandbox) and a sandbox_ key';
  try {
    const sessions = await createSandboxClient({ baseUrl: options.baseUrl, apiKey: options.apiKey }).reset();
    return { name, outcome: 'pass', detail: `${sessions.length} session(s)` };
  } catch (error) {
    return { name, outcome: 'fail', detail: `${(error as Error).message} (${fix})` };
  }
}

// x-decisions: webhook-url-policy (HTTPS only, no private hosts). Checked locally: the suite
// cannot observe deliveries to a URL it does not host.
function checkWebhookUrl(url: string): CheckResult {
  const name = 'webhook URL meets the URL policy (delivery not observed)';
  const result = validateWebhookUrl(url);
  return result.ok ? { name, outcome: 'pass', detail: result.url.href } : { name, outcome: 'fail', detail: result.reason };
}

async function send(request: CheckRequest, options: ConformanceOptions): Promise<ReceivedAnswer> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  if (request.authorization !== null) headers.authorization = request.authorization;
  if (request.contentType) headers['content-type'] = request.contentType;
  if (options.mode === 'mock' && request.prefer) headers.prefer = request.prefer;
  if (request.origin) headers.origin = request.origin;
  const res = await fetch(resumeUrl(base, request.sessionId), {
    method: 'POST',
    headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectationProblems(step: CheckStep, answer: ReceivedAnswer, answers: readonly ReceivedAnswer[]): string[] {
  const e = step.expect;
  const problems: string[] = [];
  if (e.status !== undefined && answer.status !== e.status) problems.push(`expected status ${e.status}`);
  if (e.notStatus?.includes(answer.status)) problems.push(`status must not be ${answer.status}`);
  if (e.bodyContains && !answer.text.includes(e.bodyContains)) problems.push(`body lacks "${e.bodyContains}"`);
  if (e.bodyHas) {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      // reported by the spec check
    }
    for (const [key, value] of Object.entries(e.bodyHas)) {
      if (body?.[key] !== value) problems.push(`body.${key} is ${JSON.stringify(body?.[key])}, expected ${JSON.stringify(value)}`);
    }
  }
  if (e.rateLimit) {
    const earlier = e.rateLimit.belowStep === undefined ? undefined : answers[e.rateLimit.belowStep];
    problems.push(...rateLimitProblems(answer, earlier));
  }
  if (e.corsOrigin) problems.push(...corsProblems(answer, e.corsOrigin));
  for (const [name, pattern] of Object.entries(e.headers ?? {})) {
    if (!pattern.test(answer.headers.get(name) ?? '')) problems.push(`header ${name} does not match ${pattern}`);
  }
  if (e.sameAsStep !== undefined) {
    const earlier = answers[e.sameAsStep];
    if (
      earlier &&
      (earlier.status !== answer.status || earlier.text !== answer.text || earlier.headers.get('www-authenticate') !== answer.headers.get('www-authenticate'))
    ) {
      problems.push(`answer differs from step ${e.sameAsStep + 1}: it reveals whether the session exists`);
    }
  }
  return problems;
}
