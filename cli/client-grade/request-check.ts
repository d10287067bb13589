/**
 * The request check: every request is the contract's resume call. POST to
 * /v1/sessions/{session_id}/resume for one of the given ids, one `Authorization: Bearer <key>`
 * with the key given, and no body or a JSON object (application/json).
 */
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import type { Verdict } from '../grade-report.js';
import type { CheckContext } from './grade-observations.js';
import type { Attempt } from './observations.js';

/** Longest request target quoted in evidence. */
const TARGET_SHOWN = 80;

/** A body the contract accepts: none, or a JSON object sent as application/json. */
function bodyProblem(attempt: Attempt): string | undefined {
  if (attempt.bodyBytes === 0) return undefined;
  // Stryker disable next-line StringLiteral: any fallback that is not a JSON media type reads the same
  if (!/^application\/json\s*(;|$)/i.test(attempt.contentType ?? ''))
    return `a ${attempt.bodyBytes}-byte body sent as ${attempt.contentType ?? 'no Content-Type'}`;
  try {
    const value: unknown = JSON.parse(attempt.body);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return undefined;
  } catch {
    // Not JSON (or cut at the kept kilobyte): said below.
  }
  return `a body that is not a JSON object (${attempt.body.slice(0, 40)})`;
}

/** What is wrong with one request, or undefined. */
function requestProblem(attempt: Attempt, apiKey: string): string | undefined {
  if (!attempt.scenario) return `a request to ${attempt.target.slice(0, TARGET_SHOWN)}, which is not the resume path of a given session id`;
  if (attempt.method !== 'POST') return `${attempt.method} instead of POST`;
  if (attempt.authorization.length !== 1) return `${attempt.authorization.length} Authorization headers instead of one`;
  const [scheme, token, ...more] = (attempt.authorization[0] as string).split(' ');
  if ((scheme as string).toLowerCase() !== 'bearer' || token !== apiKey || more.length > 0)
    return 'an Authorization header other than Bearer with the SESSION_RESUME_API_KEY given';
  return bodyProblem(attempt);
}

/** Every request as the contract says. */
export function checkRequest(ctx: CheckContext): Verdict {
  const { attempts, apiKey } = ctx.obs;
  if (attempts.length === 0) {
    return { grade: 'fail', evidence: 'no request reached SESSION_RESUME_BASE_URL: the client is to resume each id of SESSION_RESUME_SESSION_IDS there.' };
  }
  if (ctx.obs.refused > 0) {
    return {
      grade: 'fail',
      evidence: `${attempts.length + ctx.obs.refused} requests in one run for ${ctx.obs.scenarios.length} session ids: the grader recorded ${attempts.length} and refused the rest.`,
    };
  }
  for (const attempt of attempts) {
    const problem = requestProblem(attempt, apiKey);
    if (problem) return { grade: 'fail', evidence: `request ${attempt.seq} of ${attempts.length}: ${problem}.` };
  }
  const bodies = attempts.some((a) => a.bodyBytes > 0) ? 'no body or a JSON object' : 'no body';
  return { grade: 'pass', evidence: `${attempts.length} requests: POST ${RESUME_PATH}, Authorization: Bearer with the key given, ${bodies}.` };
}
