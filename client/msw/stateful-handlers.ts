/**
 * Stateful MSW handlers: the sandbox's state model without a server, for frontend unit
 * tests. A resume flips an in-memory session (paused → running, then 409 not_paused; unknown
 * ids 404), each success records the webhook payload in an event feed, `Prefer` forces a named
 * example without touching state, and `/_sandbox/*` answers like the sandbox's control API,
 * so `createSandboxClient` works against it too. One world per handler set; call `reset()`
 * in `afterEach`. Browser-safe.
 */
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { http as mswHttp, HttpResponse, type HttpHandler } from 'msw';
import { createOpenApiHttp } from 'openapi-msw';
import type { ApiPaths as paths } from 'session-resume-api-types';
import type { SandboxEvent, SandboxSession } from '@session-resume-api/runtime/sandbox-types';
import { DEFAULT_DELIVERY_PROFILE, readDeliveryProfile, type DeliveryProfile } from '@session-resume-api/runtime/delivery/delivery-rules';
import { DEMO_SESSIONS } from '@session-resume-api/runtime/demo-sessions';
import { choosePrefer } from '@session-resume-api/runtime/prefer';
import { RESUME_PATH } from '@session-resume-api/runtime/resume-path';
import type { ErrorBody, ResumeResult, SessionEvent } from '@session-resume-api/runtime/types';
import type { ResumeScenario } from './resume-scenario.js';
import { resumeScenarios } from './scenarios.generated.js';

/** Options of `createStatefulResumeHandlers`. */
export interface StatefulResumeHandlersOptions {
  /** Base URL the app calls, without /v1 (e.g. `https://api.test`). */
  baseUrl: string;
  /**
   * Sessions the world starts with and returns to on `reset()`.
   * @defaultValue the demo set, as in the sandbox
   */
  sessions?: readonly { id: string; status: string }[];
  /**
   * Clock for `updatedAt` and event timestamps.
   * @defaultValue `() => new Date()`
   */
  now?: () => Date;
}

/** The handlers and the world behind them. */
export interface StatefulResumeHandlers {
  /** Pass to `setupServer(...)` / `setupWorker(...)`. */
  handlers: HttpHandler[];
  /** Back to the seed sessions, event feed cleared: call it in `afterEach`. */
  reset(): void;
  /** Creates the session or sets its status. */
  setSession(id: string, status: string): SandboxSession;
  /** Every session, sorted by id. */
  sessions(): SandboxSession[];
  /** The events the resumes emitted, oldest first. */
  events(): SandboxEvent[];
}

const scenario = (name: string) => resumeScenarios.find((s) => s.example === name) as ResumeScenario;
const answer = (s: ResumeScenario) => HttpResponse.json<ResumeResult | ErrorBody>(s.body, { status: s.status, headers: { ...s.headers } });
const hasBearer = (request: Request) => /^bearer\s+\S/i.test(request.headers.get('authorization') ?? '');

/** sha256 hex of [event, session.id, timestamp] as sent: the same delivery identity as the sandbox's feed. */
async function identity(event: SessionEvent): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify([event.event, event.session.id, event.timestamp]));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Creates the handlers and their world. @example
 * const api = createStatefulResumeHandlers({ baseUrl: 'https://api.test' });
 * const server = setupServer(...api.handlers);
 * afterEach(() => api.reset());
 */
export function createStatefulResumeHandlers(options: StatefulResumeHandlersOptions): StatefulResumeHandlers {
  if (!options?.baseUrl) throw new OptionsError('baseUrl is required (e.g. https://api.test)', { option: 'baseUrl' });
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const seeds = (options.sessions ?? DEMO_SESSIONS).map(({ id, status }) => ({ id, status }));
  const now = options.now ?? (() => new Date());
  const sessions = new Map<string, SandboxSession>();
  let feed: SandboxEvent[] = [];
  // Kept so that sandbox set-up code runs unchanged; nothing is delivered here.
  const delivery = { profile: { ...DEFAULT_DELIVERY_PROFILE } };
  const world: StatefulResumeHandlers = {
    handlers: [],
    reset() {
      sessions.clear();
      for (const { id, status } of seeds) sessions.set(id, { id, status, updatedAt: now().toISOString() });
      feed = [];
      delivery.profile = { ...DEFAULT_DELIVERY_PROFILE };
    },
    setSession(id, status) {
      const session = { id, status, updatedAt: now().toISOString() };
      sessions.set(id, session);
      return { ...session };
    },
    sessions: () => [...sessions.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((s) => ({ ...s })),
    events: () => feed.map((e) => structuredClone(e)),
  };
  world.reset();

  const http = createOpenApiHttp<paths>({ baseUrl });
  const resume = http.post(RESUME_PATH, async ({ request, params }) => {
    // Like the sandbox: authentication first, then Prefer, then the state.
    if (!hasBearer(request)) return answer(scenario('missingToken'));
    const choice = choosePrefer(request.headers.get('prefer'), resumeScenarios);
    if (choice.kind === 'forced') return answer(choice.scenario);
    if (choice.kind === 'unknown')
      return HttpResponse.json<ResumeResult | ErrorBody>({ success: false, error: 'bad_request', message: choice.message }, { status: 400 });
    const id = String(params.session_id);
    const session = sessions.get(id);
    if (!session) return answer(scenario('notFound'));
    if (session.status !== 'paused') return answer(scenario('notPaused'));
    const at = now().toISOString();
    sessions.set(id, { id, status: 'running', updatedAt: at });
    const payload: SessionEvent = { event: 'session.resumed', session: { id }, timestamp: at };
    // A webhook-id like the server's (msg_ + a random UUID), the same for every read of the feed.
    feed.push({ sequence: feed.length + 1, webhookId: `msg_${globalThis.crypto.randomUUID()}`, dedupeKey: await identity(payload), payload });
    return answer(scenario('resumed'));
  });
  world.handlers = [resume, ...controlHandlers(baseUrl, world, delivery)];
  return world;
}

/** `/_sandbox/*` like the sandbox's control API (any bearer token; one world). */
function controlHandlers(baseUrl: string, world: StatefulResumeHandlers, delivery: { profile: DeliveryProfile }): HttpHandler[] {
  // Plain msw routes: the control API's bodies are typed by the generated schemas above.
  const at = (path: string) => `${baseUrl}/_sandbox${path}`;
  const unauthorized = () =>
    HttpResponse.json(
      { success: false as const, error: 'unauthorized', message: 'Missing bearer token: send Authorization: Bearer <API_KEY>.' },
      { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="session-resume-api"' } },
    );
  return [
    mswHttp.post(at('/reset'), ({ request }) => (hasBearer(request) ? (world.reset(), HttpResponse.json({ sessions: world.sessions() })) : unauthorized())),
    mswHttp.get(at('/sessions'), ({ request }) => (hasBearer(request) ? HttpResponse.json({ sessions: world.sessions() }) : unauthorized())),
    mswHttp.get(at('/events'), ({ request }) => (hasBearer(request) ? HttpResponse.json({ events: world.events() }) : unauthorized())),
    mswHttp.get(at('/delivery-profile'), ({ request }) => (hasBearer(request) ? HttpResponse.json(delivery.profile) : unauthorized())),
    mswHttp.put(at('/delivery-profile'), async ({ request }) => {
      if (!hasBearer(request)) return unauthorized();
      // A body that is not JSON reads as no profile: answered 400 below, with the reason.
      const reading = readDeliveryProfile(await request.json().catch(() => undefined));
      if (!reading.ok)
        return HttpResponse.json({ success: false as const, error: 'bad_request', message: `Invalid body: ${reading.message}` }, { status: 400 });
      delivery.profile = reading.profile;
      return HttpResponse.json(delivery.profile);
    }),
    mswHttp.put(at('/sessions/:session_id'), async ({ request, params }) => {
      if (!hasBearer(request)) return unauthorized();
      // A body that is not JSON has no status: answered 400 below.
      const body = (await request.json().catch(() => undefined)) as { status?: unknown } | undefined;
      const status = body?.status;
      if (typeof status !== 'string' || status.length === 0 || status.length > 64) {
        return HttpResponse.json(
          { success: false as const, error: 'bad_request', message: 'Invalid body: send {"status": "paused"} or another status.' },
          { status: 400 },
        );
      }
      return HttpResponse.json(world.setSession(String(params.session_id), status));
    }),
  ];
}
