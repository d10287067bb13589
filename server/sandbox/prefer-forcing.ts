/**
 * `Prefer: code=…, example=…` on the resume route, like the Prism mock (x-decisions in
 * spec/sandbox.yaml: sandbox-prefer): the answer is one of the main document's named
 * examples, it goes through the same response validator, and it changes no state.
 */
import type { RequestHandler } from 'express';
import { choosePrefer } from '@session-resume-api/runtime/prefer';
import { listScenarios, type Scenario } from '@session-resume-api/runtime/scenarios';
import { HttpError } from '../errors/http-error.js';

export { choosePrefer };

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
