/** Sandbox mode (`--sandbox` only): key worlds, the `/_sandbox` control API, `Prefer` forcing and the per-key feed. */
import type { RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { WebhookMessage } from '../core/webhook-message.js';
import type { SessionSeed } from '../sessions/session-store.js';
import type { WebhookDelivery } from '../webhooks/webhook-delivery.js';
import { createControlRouter } from './control-router.js';
import { createPreferForcing } from './prefer-forcing.js';
import { createSandboxWorlds, type SandboxWorld, type SandboxWorldsOptions } from './sandbox-worlds.js';

/** Options of `createSandbox`; the bounds of its worlds are those of `SandboxWorldsOptions`, with their defaults. */
export interface SandboxOptions extends Pick<SandboxWorldsOptions, 'maxWorlds' | 'maxEvents' | 'maxSessions'> {
  /** Sessions each world starts with (the server's seed set). */
  seeds: readonly SessionSeed[];
  /**
   * Also delivers every event (WEBHOOK_URL).
   * @defaultValue none: the feed only
   */
  webhookDelivery?: WebhookDelivery;
  /**
   * Where the control API reports a defect.
   * @defaultValue nowhere
   */
  logger?: Pick<Logger, 'error'>;
}

/** What `createApp` mounts in sandbox mode. */
export interface Sandbox {
  /** The world id of a `sandbox_` token, or undefined (then 401). */
  checkKey(token: string): string | undefined;
  /** The caller's world (its sessions are the store the resume route uses). */
  world(worldId: string): SandboxWorld;
  /** Records the event in the world's feed and hands it to the webhook delivery, if any. */
  emit(worldId: string, event: WebhookMessage): void;
  /** The `/_sandbox` control API; mount before the main validator. */
  router: Router;
  /** `Prefer` forcing for the resume route; mount after authentication. */
  preferForcing: RequestHandler;
  /** CORS additions: the control API's PUT and the Prefer and Last-Event-ID headers. */
  cors: { methods: string[]; headers: string[]; expose: string[] };
  /** Ends live event streams and closes the webhook delivery (at shutdown). */
  close(): Promise<void>;
}

/**
 * Builds the sandbox. @example
 * const sandbox = createSandbox({ seeds: DEMO_SESSIONS });
 * const app = await createApp({ store: createMemorySessionStore(), apiKeys: ['unused'], sandbox, corsOrigins: ['*'] });
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const delivery = options.webhookDelivery;
  const worlds = createSandboxWorlds({
    seeds: options.seeds,
    ...(options.maxWorlds !== undefined ? { maxWorlds: options.maxWorlds } : {}),
    ...(options.maxEvents !== undefined ? { maxEvents: options.maxEvents } : {}),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  });
  const control = createControlRouter({ worlds, ...(options.logger ? { logger: options.logger } : {}) });
  return {
    checkKey: worlds.checkKey,
    world: worlds.world,
    emit(worldId, event) {
      worlds.world(worldId).record(event);
      delivery?.enqueue(event);
    },
    router: control.router,
    preferForcing: createPreferForcing(),
    cors: {
      methods: ['GET', 'POST', 'PUT', 'OPTIONS'],
      headers: ['Authorization', 'Content-Type', 'Prefer', 'Last-Event-ID'],
      expose: ['Preference-Applied'],
    },
    async close() {
      control.closeStreams();
      await delivery?.close();
    },
  };
}
