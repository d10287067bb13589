/**
 * The view an instance keeps of its endpoint's shared state: a change this instance made (a 410
 * that disabled the endpoint) holds its next attempt at once, even when a reread of the shared
 * state that started before the change ends after it; other instances see it at their next reread.
 */
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createEndpointCircuit, createMemoryHealthStore, type EndpointHealthStore } from '../../server/webhooks/endpoint-circuit.js';
import type { EndpointHealth } from '../../server/webhooks/endpoint-circuit-rules.js';
import { ENDPOINT_HEALTH_POLICY } from '../../server/webhooks/endpoint-health-policy.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A shared store whose first read (the circuit's reread at creation) answers what was there when
 * it was asked, but only when released; later reads answer at once.
 */
function slowReads(store: EndpointHealthStore): EndpointHealthStore & { release(): Promise<void> } {
  const pending: (() => void)[] = [];
  let reads = 0;
  return {
    async read() {
      const seen = await store.read();
      if (reads++ > 0) return seen;
      return new Promise<EndpointHealth>((resolve) => pending.push(() => resolve(seen)));
    },
    update: (change) => store.update(change),
    async release() {
      for (const done of pending.splice(0)) done();
      // Let the circuit take what the reads answered.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const backlog = { count: async () => 0, release: async () => 0 };
// No reread by the timer during the test: the only reread is the one at creation.
const policy = { ...ENDPOINT_HEALTH_POLICY, refreshMs: 3_600_000 };

it('after a 410 the instance that got it attempts nothing more, though a reread older than the 410 ends after it', async () => {
  const shared = createMemoryHealthStore();
  const store = slowReads(shared);
  const circuit = createEndpointCircuit({ store, backlog, endpoint: 'https://hooks.example.com', logger: pino({ enabled: false }), policy, drains: false });
  try {
    expect(await circuit.admit()).toEqual({ kind: 'deliver' });
    await circuit.record({ delivered: false, status: 410 }, false);
    expect((await shared.read()).state).toBe('disabled');
    expect(await circuit.admit()).toEqual({ kind: 'hold' });
    // The reread started at creation, before the 410, answers now: "closed".
    await store.release();
    expect(await circuit.admit()).toEqual({ kind: 'hold' });
  } finally {
    circuit.close();
  }
});

it('another instance on the same shared state holds from its next reread on', async () => {
  const shared = createMemoryHealthStore();
  const logger = pino({ enabled: false });
  const first = createEndpointCircuit({ store: shared, backlog, endpoint: 'https://hooks.example.com', logger, policy, drains: false });
  const other = createEndpointCircuit({
    store: shared,
    backlog,
    endpoint: 'https://hooks.example.com',
    logger,
    policy: { ...policy, refreshMs: 5 },
    drains: false,
  });
  try {
    await new Promise((resolve) => setImmediate(resolve));
    expect(await other.admit()).toEqual({ kind: 'deliver' });
    await first.record({ delivered: false, status: 410 }, false);
    await waitFor(async () => (await other.admit()).kind === 'hold', { what: "the other instance's next reread" });
  } finally {
    first.close();
    other.close();
  }
});
