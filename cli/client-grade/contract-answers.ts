/**
 * The answers of `client grade`'s server: the resume operation's named response examples of
 * spec/openapi.yaml (status, required headers, body), so every answer has the contract's shape.
 */
import { listScenarios } from '@session-resume-api/runtime/scenarios';

/** Header names in lower case, so that a fault's own value (Retry-After) replaces the example's. */
const lowerCased = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** One answer to send; header names in lower case. */
export interface ContractAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let byExample: Map<string, ContractAnswer> | undefined;

/** The named example `example` of the resume operation; throws when the spec has none (a defect of the grader). */
export function contractAnswer(example: string): ContractAnswer {
  byExample ??= new Map(
    listScenarios().map((s) => [
      s.example,
      { status: s.status, headers: { 'content-type': 'application/json', ...lowerCased(s.headers) }, body: JSON.stringify(s.body) },
    ]),
  );
  const found = byExample.get(example);
  if (!found) throw new Error(`spec/openapi.yaml has no resume example named ${example}.`);
  return found;
}
