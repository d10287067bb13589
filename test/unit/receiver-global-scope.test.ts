/**
 * A Worker creates its receiver at module scope, where workerd refuses timers, random values
 * and I/O ("Disallowed operation called within global scope"). Here those globals throw the
 * same way while the stores and the receiver are created; once a delivery comes (a request,
 * where workerd allows them) the receiver answers and `onEvent` runs.
 * test/slow/runtimes/workerd-memory.test.ts runs the same in workerd itself.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { ReceiverStore } from '../../client/webhooks/index.js';
import { waitFor } from '../helpers/wait-for.js';

const REFUSED = ['setTimeout', 'setInterval', 'fetch'] as const;
const g = globalThis as unknown as Record<string, unknown>;
const saved = new Map<string, unknown>();
const savedCrypto = { getRandomValues: crypto.getRandomValues, randomUUID: crypto.randomUUID };

/** Makes every operation workerd refuses at global scope throw, until `allow()`. */
function refuseLikeGlobalScope(): void {
  // workerd has no setImmediate (without the nodejs_compat flag); the kit reads it when loaded.
  saved.set('setImmediate', g.setImmediate);
  g.setImmediate = undefined;
  const refuse = (name: string) => () => {
    throw new Error(`Disallowed operation called within global scope: ${name}`);
  };
  for (const name of REFUSED) {
    saved.set(name, g[name]);
    g[name] = refuse(name);
  }
  crypto.getRandomValues = refuse('crypto.getRandomValues') as typeof crypto.getRandomValues;
  crypto.randomUUID = refuse('crypto.randomUUID') as typeof crypto.randomUUID;
}

function allow(): void {
  for (const [name, value] of saved) g[name] = value;
  saved.clear();
  crypto.getRandomValues = savedCrypto.getRandomValues;
  crypto.randomUUID = savedCrypto.randomUUID;
}

afterEach(allow);

/** The receiver kit loaded afresh at "global scope", as a Worker's bundle is evaluated. */
async function kitAtGlobalScope() {
  vi.resetModules();
  refuseLikeGlobalScope();
  const kit = await import('../../client/webhooks/index.js');
  const cloudflare = await import('../../client/webhooks/cloudflare/index.js');
  return { ...kit, ...cloudflare };
}

const body = (sessionId: string) => JSON.stringify({ event: 'session.resumed', session: { id: sessionId }, timestamp: '2026-11-28T00:00:00.000Z' });

it('a receiver over the memory store is created where timers and random values are refused, and handles the first delivery', async () => {
  const handled: string[] = [];
  const { createMemoryEventStore, createWebhookReceiver } = await kitAtGlobalScope();
  const receiver = createWebhookReceiver({ store: createMemoryEventStore(), onEvent: (event) => void handled.push(event.session?.id ?? ''), logger: false });
  allow();
  expect(await receiver.receive(body('sess_module_scope'))).toMatchObject({ status: 200, body: { duplicate: false } });
  await waitFor(() => handled.length === 1);
  expect(handled).toEqual(['sess_module_scope']);
  await receiver.close();
});

it('a receiver over the Durable Object store is created there too, calling nothing of its namespace', async () => {
  const calls: string[] = [];
  const namespace = {
    idFromName: (name: string) => void calls.push(`idFromName ${name}`),
    get: () => {
      calls.push('get');
      return { fetch: async () => Response.json(null) };
    },
  };
  const { createDurableObjectStore, createWebhookReceiver } = await kitAtGlobalScope();
  const store: ReceiverStore = createDurableObjectStore({ namespace });
  createWebhookReceiver({ store, onEvent: () => undefined, logger: false });
  allow();
  expect(calls).toEqual([]);
});
