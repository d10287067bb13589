/** Typed set-up calls for tests against the reference server's sandbox (spec/sandbox.yaml), on openapi-fetch. Browser-safe. */
import { isBearerToken } from '@session-resume-api/runtime/bearer-token';
import { OptionsError } from '@session-resume-api/runtime/options-error';
import { SANDBOX_KEY_PREFIX } from '@session-resume-api/runtime/sandbox-key';
import createClient, { type Client } from 'openapi-fetch';
import type { SandboxApiComponents, SandboxApiPaths, SandboxEvent, SandboxSession } from '@session-resume-api/runtime/sandbox-types';
import type { FetchLike } from '../retry.js';

export type { SandboxEvent, SandboxSession } from '@session-resume-api/runtime/sandbox-types';
/** How `listen --forward-to` delivers the world's events: duplicates, copies, delay, reordering, retries. */
export type DeliveryProfile = SandboxApiComponents['schemas']['DeliveryProfile'];

/** Options of `createSandboxClient`. */
export interface SandboxClientOptions {
  /** Base URL of the sandbox, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A key that starts with `sandbox_`; each distinct key has its own world (see `newSandboxKey`). */
  apiKey: string;
  /**
   * The fetch to use.
   * @defaultValue `globalThis.fetch`
   */
  fetch?: FetchLike;
}

/** The set-up calls; each acts on the world of `apiKey` only. */
export interface SandboxClient {
  /** Puts the world back to the seed set and clears its event feed; resolves to the sessions. */
  reset(): Promise<SandboxSession[]>;
  /** Creates the session or sets its status (`paused` makes it resumable); emits no event. */
  setSession(id: string, status: string): Promise<SandboxSession>;
  /** The world's sessions, sorted by id. */
  sessions(): Promise<SandboxSession[]>;
  /** The events the world's resumes emitted, oldest first. */
  events(): Promise<SandboxEvent[]>;
  /**
   * Sets the world's delivery profile (absent fields take their defaults: `{}` delivers every event
   * once, in order, on time); resolves to the profile in force. A reset restores the default too.
   * @example await sandbox.setDeliveryProfile({ duplicateRate: 1, outOfOrderRate: 0.5 });
   */
  setDeliveryProfile(profile: Partial<DeliveryProfile>): Promise<DeliveryProfile>;
  /** The world's delivery profile. */
  deliveryProfile(): Promise<DeliveryProfile>;
  /** The openapi-fetch client underneath, for typed raw calls. */
  raw: Client<SandboxApiPaths>;
}

/** A control call did not get its 200 (or got no answer); `status` and `body` say what came back. */
export class SandboxClientError extends Error {
  override name = 'SandboxClientError';
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
/**
 * Creates the client; throws TypeError for an empty `baseUrl` or a key without the `sandbox_` prefix.
 * @example
 * const sandbox = createSandboxClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: newSandboxKey() });
 * await sandbox.setSession('sess_checkout', 'paused');
 */
export function createSandboxClient(options: SandboxClientOptions): SandboxClient {
  checkOptions(options);
  const fetchFn = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<SandboxApiPaths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: (request) => fetchFn(request),
  });
  const call = createControlCall(options.baseUrl);
  // The list answers one page at a time (x-decisions: sandbox-session-limit): follow `next`.
  const rest = async (first: { sessions: SandboxSession[]; next?: string }): Promise<SandboxSession[]> => {
    const all = [...first.sessions];
    for (let after = first.next; after !== undefined;) {
      const page = await call('sessions', () => raw.GET('/_sandbox/sessions', { params: { query: { limit: 1000, after } } }));
      all.push(...page.sessions);
      after = page.next;
    }
    return all;
  };
  return {
    reset: async () => rest(await call('reset', () => raw.POST('/_sandbox/reset'))),
    setSession: (id, status) =>
      call(`setSession(${JSON.stringify(id)})`, () => raw.PUT('/_sandbox/sessions/{session_id}', { params: { path: { session_id: id } }, body: { status } })),
    sessions: async () => rest(await call('sessions', () => raw.GET('/_sandbox/sessions', { params: { query: { limit: 1000 } } }))),
    events: async () => {
      // Asking for JSON: the operation also answers text/event-stream.
      const list = await call('events', () => raw.GET('/_sandbox/events', { headers: { Accept: 'application/json' } }));
      return (list as { events: SandboxEvent[] }).events;
    },
    setDeliveryProfile: (profile) => call('setDeliveryProfile', () => raw.PUT('/_sandbox/delivery-profile', { body: profile as DeliveryProfile })),
    deliveryProfile: () => call('deliveryProfile', () => raw.GET('/_sandbox/delivery-profile')),
    raw,
  };
}

/** Refuses an empty or non-http(s) `baseUrl` and a key without the `sandbox_` prefix. */
function checkOptions(options: SandboxClientOptions): void {
  if (typeof options?.baseUrl !== 'string' || !/^https?:\/\/[^/]/i.test(options.baseUrl)) {
    throw new OptionsError('createSandboxClient: baseUrl must be an http(s) URL such as http://127.0.0.1:3000.', { option: 'baseUrl' });
  }
  if (typeof options.apiKey !== 'string' || !options.apiKey.startsWith(SANDBOX_KEY_PREFIX) || !isBearerToken(options.apiKey.slice(SANDBOX_KEY_PREFIX.length))) {
    throw new OptionsError('createSandboxClient: apiKey must start with sandbox_ (e.g. from newSandboxKey()); other keys get 401 from the sandbox.', {
      option: 'apiKey',
    });
  }
}

type ControlResult<T> = { data?: T; error?: unknown; response: Response };

/** One control call: its data on a 200, else a SandboxClientError saying what came back. */
function createControlCall(baseUrl: string) {
  return async <T>(what: string, run: () => Promise<ControlResult<T>>): Promise<T> => {
    let result: ControlResult<T>;
    try {
      result = await run();
    } catch (cause) {
      throw new SandboxClientError(`${what}: no answer from ${baseUrl} (${(cause as Error).message}).`, undefined, undefined, { cause });
    }
    if (result.response.status !== 200 || result.data === undefined) {
      const detail = (result.error as { message?: string } | undefined)?.message ?? `status ${result.response.status}`;
      throw new SandboxClientError(`${what} failed: ${detail}`, result.response.status, result.error);
    }
    return result.data;
  };
}
