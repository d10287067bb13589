/**
 * Typed MSW handlers for frontend tests without a server, answering like the Prism mock: the spec's
 * named examples chosen by the same `Prefer` header, 401 without a bearer token. Browser-safe.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { HttpResponse, type HttpHandler } from 'msw';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import { createOpenApiHttp } from 'openapi-msw';
import type { ApiPaths as paths } from 'session-resume-api-types';
import type { ResumeScenario } from './resume-scenario.js';
import { resumeScenarios } from './scenarios.generated.js';

export type { ResumeScenario } from './resume-scenario.js';
// The types the handlers' answers and the stateful world carry, nameable from this entry.
export type { ApiComponents, ApiOperations, ApiPaths, ErrorBody, ResumeResult } from '@session-resume-api/runtime/types';
export type { SandboxApiComponents, SandboxApiOperations, SandboxApiPaths, SandboxEvent, SandboxSession } from '@session-resume-api/runtime/sandbox-types';

/** Options of `createResumeHandlers`. */
export interface ResumeHandlersOptions {
  /** Base URL the app calls, without /v1 (e.g. `https://api.test` or `/api`). */
  baseUrl: string;
  /**
   * Example answered when a request has no `Prefer`; a request without a token gets `missingToken` whatever this says.
   * @defaultValue `'resumed'`
   */
  scenario?: string;
}

const byName = new Map<string, ResumeScenario>(resumeScenarios.map((s) => [s.example, s]));

function pick(name: string): ResumeScenario {
  const found = byName.get(name);
  if (!found) throw new OptionsError(`unknown scenario "${name}"; known: ${[...byName.keys()].join(', ')}`, { option: 'scenario' });
  return found;
}

// As Prism: `example=` names the example; `code=` alone takes that status's first example.
function fromPrefer(prefer: string): ResumeScenario | undefined {
  const example = /(?:^|[,;\s])example=([^,;\s]+)/.exec(prefer)?.[1];
  if (example) return byName.get(example);
  const code = Number(/(?:^|[,;\s])code=(\d{3})/.exec(prefer)?.[1]);
  return resumeScenarios.find((s) => s.status === code);
}

/**
 * Creates the handlers; throws at creation on an unknown `scenario` or an empty `baseUrl`.
 * @example const server = setupServer(...createResumeHandlers({ baseUrl: 'https://api.example.com' }));
 */
export function createResumeHandlers(options: ResumeHandlersOptions): HttpHandler[] {
  if (!options.baseUrl) throw new OptionsError('baseUrl is required (e.g. https://api.test)', { option: 'baseUrl' });
  const fallback = pick(options.scenario ?? 'resumed');
  const missingToken = pick('missingToken');
  const http = createOpenApiHttp<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, '') });
  return [
    http.post(RESUME_PATH, ({ request }) => {
      const prefer = request.headers.get('prefer');
      let scenario = prefer ? fromPrefer(prefer) : fallback;
      if (!scenario) {
        return HttpResponse.json({ success: false, error: 'unknown_scenario', message: `No example matches Prefer: ${prefer}` }, { status: 500 });
      }
      // Source spec §5: the Bearer scheme is required; like Prism, no token means 401.
      if (!/^bearer\s+\S/i.test(request.headers.get('authorization') ?? '')) scenario = missingToken;
      return HttpResponse.json(scenario.body, { status: scenario.status, headers: { ...scenario.headers } });
    }),
  ];
}
export { createStatefulResumeHandlers } from './stateful-handlers.js';
export type { StatefulResumeHandlers, StatefulResumeHandlersOptions } from './stateful-handlers.js';
