/**
 * The rules one answer of the resume API is graded by on its own: the request and answer
 * shapes, the error shape, the not_paused answer, Retry-After and the rate-limit fields.
 */
import { retryAfterMs } from '@session-resume-api/runtime/retry-after';
import { rateLimitProblems } from '../conformance/header-expectations.js';
import { RESUME_RETRY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { ContractView, DeclaredAnswer, Operation, PathMatch } from './contract-view.js';
import { header, type Exchange, type HeaderList } from './exchange.js';
import type { Finding } from './watch-rules.js';

const NOT_PAUSED = RESUME_RETRY_POLICY.outcomes.notPaused;

/** Headers the behaviour rules own: the shape rule leaves them to those. */
const OWNED_HEADERS = new Set(['retry-after', 'ratelimit', 'ratelimit-policy']);

/** What the API checks share. */
export interface ApiCheckContext {
  view: ContractView;
}

/** Whether `exchange` is a CORS preflight, which the contract leaves out of its operations. */
export function isPreflight(exchange: Exchange): boolean {
  return exchange.method === 'OPTIONS' && exchange.requestHeaders.has('access-control-request-method');
}

/** Grades one answered exchange on a path of the contract. */
export function checkApiExchange(exchange: Exchange & { status: number }, match: PathMatch, ctx: ApiCheckContext): Finding[] {
  const operation = match.operations.get(exchange.method);
  // The path's operation declares the answers to every method there (405 included).
  const declaring = operation ?? match.operations.values().next().value;
  const declared = declaring?.answer(exchange.status);
  const marked = exchange.responseBody?.includes(NOT_PAUSED.marker) === true;
  const findings: Finding[] = [checkRequest(exchange, match, operation, ctx.view), checkResponse(exchange, declared, marked, ctx.view)];
  if (declared && declaring && !marked) findings.push(checkOutcome(exchange, declaring, ctx.view.errorMarks));
  if (exchange.status >= 300 && !marked && declared?.jsonSchema) findings.push(checkErrorBody(exchange, declared.jsonSchema, ctx.view));
  if (marked) findings.push(checkNotPaused(exchange, ctx));
  if ((RESUME_RETRY_POLICY.retryAfter.statuses as readonly number[]).includes(exchange.status)) {
    const retryAfter = checkRetryAfter(exchange, declared?.headers.get('retry-after')?.required !== false);
    if (retryAfter) findings.push(retryAfter);
  }
  const rate = checkRateLimit(exchange.responseHeaders);
  if (rate) findings.push(rate);
  return findings;
}

/** Why the contract refuses this request (empty: it does not). */
export function refusals(exchange: Exchange, match: PathMatch, operation: Operation | undefined, view: ContractView): string[] {
  if (!operation) return [`${exchange.method} is not an operation of ${match.template}`];
  const found: string[] = [];
  const auth = exchange.requestHeaders.get('authorization') ?? [];
  if (auth.length !== 1 || !/^Bearer \S+$/i.test(auth[0] as string)) found.push(auth.length > 1 ? 'Authorization sent twice' : 'no Bearer Authorization');
  for (const param of operation.parameters) {
    const values =
      param.in === 'header'
        ? exchange.requestHeaders.get(param.name.toLowerCase())
        : param.in === 'path'
          ? [decodeSegment(match.params[param.name])]
          : undefined;
    if (values === undefined) {
      if (param.required) found.push(`${param.in} parameter ${param.name} missing`);
      continue;
    }
    if (values.length > 1) found.push(`${param.name} sent ${values.length} times`);
    for (const value of values) {
      if (value === undefined) found.push(`${param.name} is not percent-encoded correctly`);
      else for (const problem of view.problems(param.schema, value)) found.push(`${param.name} ${problem}`);
    }
  }
  const body = exchange.requestBody;
  if (body !== undefined && body.length > 0 && operation.requestSchema) {
    const type = header(exchange.requestHeaders, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) found.push(`a body with content-type ${JSON.stringify(type)}`);
    else {
      const parsed = parseJson(body);
      if (!parsed.ok) found.push('a body that is not JSON');
      else for (const problem of view.problems(operation.requestSchema, parsed.value)) found.push(`body ${problem}`);
    }
  }
  return found;
}

function checkRequest(exchange: Exchange & { status: number }, match: PathMatch, operation: Operation | undefined, view: ContractView): Finding {
  const refused = refusals(exchange, match, operation, view);
  const accepted = exchange.status >= 200 && exchange.status < 300;
  return accepted && refused.length > 0
    ? { rule: 'request-shape', fault: `answered ${exchange.status} to a request the contract refuses: ${refused.join('; ')}` }
    : { rule: 'request-shape' };
}

function checkResponse(exchange: Exchange & { status: number }, declared: DeclaredAnswer | undefined, marked: boolean, view: ContractView): Finding {
  if (!declared) return { rule: 'response-shape', fault: `status ${exchange.status} is not declared` };
  const faults: string[] = [];
  for (const [name, declaration] of declared.headers) {
    if (OWNED_HEADERS.has(name)) continue;
    const value = header(exchange.responseHeaders, name);
    if (value === undefined) {
      if (declaration.required) faults.push(`header ${name} missing`);
      continue;
    }
    const typed = /^(integer|number)$/.test(String(declaration.schema.type)) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    for (const problem of view.problems(declaration.schema, typed)) faults.push(`header ${name} ${JSON.stringify(value)} ${problem}`);
  }
  if (exchange.status < 300 && !marked && declared.jsonSchema) faults.push(...bodyFaults(exchange, declared.jsonSchema, view));
  return faults.length ? { rule: 'response-shape', fault: faults.join('; ') } : { rule: 'response-shape' };
}

/**
 * An answer is one of the operation's outcomes: a body in the error shape (carrying every member
 * the shape fixes, e.g. `success: false`) only with a status whose declared body is that shape.
 * A 200 saying `success: false` is none of them: a client reading the status takes it for done.
 */
export function checkOutcome(exchange: Exchange & { status: number }, declaring: Operation, errorMarks: Readonly<Record<string, unknown>>): Finding {
  const marks = Object.entries(errorMarks);
  const parsed = parseJson(exchange.responseBody ?? '');
  const body = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>) : undefined;
  const errorShaped = body !== undefined && marks.length > 0 && marks.every(([name, value]) => body[name] === value);
  if (!errorShaped || declaring.declaresError(exchange.status)) return { rule: 'outcome' };
  const said = marks.map(([name, value]) => `${name} ${JSON.stringify(value)}`).join(', ');
  return {
    rule: 'outcome',
    fault: `status ${exchange.status} with ${said}: an error answer, which the contract gives only with ${declaring.errorStatuses.join(', ')}`,
  };
}

function checkErrorBody(exchange: Exchange, schema: Record<string, unknown>, view: ContractView): Finding {
  const faults = bodyFaults(exchange, schema, view);
  return faults.length ? { rule: 'error-shape', fault: faults.join('; ') } : { rule: 'error-shape' };
}

function checkNotPaused(exchange: Exchange & { status: number }, ctx: ApiCheckContext): Finding {
  const faults: string[] = [];
  if (exchange.status !== NOT_PAUSED.status) faults.push(`status ${exchange.status}, not ${NOT_PAUSED.status}`);
  const parsed = parseJson(exchange.responseBody ?? '');
  const body = parsed.ok ? (parsed.value as { error?: unknown; success?: unknown } | null) : undefined;
  if (body?.error !== NOT_PAUSED.code) faults.push(`body error is ${JSON.stringify(body?.error)}, not "${NOT_PAUSED.code}"`);
  else {
    const problems = ctx.view.problems({ $ref: '#/components/schemas/Error' }, body);
    if (problems.length) faults.push(`body ${problems.join('; ')}`);
  }
  return faults.length ? { rule: 'not-paused', fault: faults.join('; ') } : { rule: 'not-paused' };
}

/** Retry-After must be there where the answer declares it required, and readable wherever it is sent. */
function checkRetryAfter(exchange: Exchange & { status: number }, required: boolean): Finding | undefined {
  const value = header(exchange.responseHeaders, 'retry-after');
  if (value === undefined) return required ? { rule: 'retry-after', fault: `status ${exchange.status} without Retry-After` } : undefined;
  return retryAfterMs(value, exchange.endedAt) === undefined
    ? { rule: 'retry-after', fault: `Retry-After ${JSON.stringify(value)} is neither seconds nor an HTTP date` }
    : { rule: 'retry-after' };
}

function checkRateLimit(headers: HeaderList): Finding | undefined {
  if (!headers.has('ratelimit') && !headers.has('ratelimit-policy')) return undefined;
  const problems = rateLimitProblems({ headers: toHeaders(headers) });
  return problems.length ? { rule: 'rate-limit-headers', fault: problems.join('; ') } : { rule: 'rate-limit-headers' };
}

function bodyFaults(exchange: Exchange, schema: Record<string, unknown>, view: ContractView): string[] {
  if (exchange.responseBody === undefined) return [];
  const type = header(exchange.responseHeaders, 'content-type') ?? '';
  const faults = /^application\/json\b/i.test(type) ? [] : [`content-type ${JSON.stringify(type)}, not application/json`];
  const parsed = parseJson(exchange.responseBody);
  if (!parsed.ok) return [...faults, `body is not JSON: ${JSON.stringify(exchange.responseBody.slice(0, 60))}`];
  return [...faults, ...view.problems(schema, parsed.value).map((p) => `body ${p}`)];
}

/** Parses JSON text without throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A path segment decoded, or undefined when its percent-encoding is broken. */
function decodeSegment(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A header list as a fetch `Headers` (repeats joined), for the shared header readers. */
export function toHeaders(list: HeaderList): Headers {
  const headers = new Headers();
  for (const [name, values] of list) for (const value of values) headers.append(name, value);
  return headers;
}
