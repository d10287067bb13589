/**
 * `Prefer: code=…, example=…` on the resume route, like the Prism mock (x-decisions in
 * spec/sandbox.yaml: sandbox-prefer): the answer is one of the main document's named
 * examples, it goes through the same response validator, and it changes no state.
 */
import type { RequestHandler } from 'express';
import { listScenarios, type Scenario } from '../../spec/tools/mock/scenarios.js';
import { HttpError } from '../errors/http-error.js';

/** What a Prefer header asks for: nothing (serve normally), a scenario, or a name no example has. */
export type PreferChoice =
  | { kind: 'none' }
  | { kind: 'forced'; scenario: Scenario }
  | { kind: 'unknown'; message: string };

/**
 * Reads `code=` and `example=` from a Prefer value (RFC 7240 preferences, comma or
 * semicolon separated, names case-insensitive). `example=` picks by name (any status, and
 * the status must match when `code=` is given too); `code=` alone picks the first example
 * of that status. @example choosePrefer('code=429', scenarios) // { kind: 'forced', scenario: rateLimited }
 */
export function choosePrefer(prefer: string | undefined, scenarios: readonly Scenario[]): PreferChoice {
  if (!prefer) return { kind: 'none' };
  const value = (name: string) => new RegExp(`(?:^|[,;\\s])${name}\\s*=\\s*"?([^,;\\s"]+)`, 'i').exec(prefer)?.[1];
  const example = value('example');
  const code = value('code');
  if (example === undefined && code === undefined) return { kind: 'none' };
  const found = scenarios.find((s) => (example === undefined || s.example === example) && (code === undefined || String(s.status) === code));
  if (found) return { kind: 'forced', scenario: found };
  const known = scenarios.map((s) => `code=${s.status}, example=${s.example}`).join('; ');
  return { kind: 'unknown', message: `Prefer asks for an answer the document does not name; use one of: ${known}.` };
}

/**
 * The middleware for the resume route, mounted after authentication and request validation:
 * a forced answer ends the request, anything else passes on to the real handler.
 */
export function createPreferForcing(scenarios: readonly Scenario[] = listScenarios()): RequestHandler {
  return (req, res, next) => {
    const choice = choosePrefer(req.get('prefer'), scenarios);
    if (choice.kind === 'none') return next();
    if (choice.kind === 'unknown') return next(new HttpError(400, 'bad_request', choice.message));
    const { scenario } = choice;
    res.setHeader('Preference-Applied', scenario.prefer);
    res.status(scenario.status).set(scenario.headers).json(scenario.body);
  };
}
