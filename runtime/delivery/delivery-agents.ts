/**
 * Keep-alive connections for webhook deliveries that keep the pinned-address guard: one
 * node:http(s) `Agent` per checked address, so a kept connection is only ever reused for a
 * delivery whose own DNS check pinned that same address (every attempt still resolves and
 * checks every address first; redirects are still never followed). Bounded: at most
 * `maxAgents` addresses (the least recently used is closed), `maxFreeSockets` idle
 * connections each, closed after `idleTimeoutMs` idle.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/** Options of `createDeliveryAgents`. */
export interface DeliveryAgentsOptions {
  /**
   * Addresses with kept connections at most.
   * @defaultValue 64
   */
  maxAgents?: number;
  /**
   * Idle connections kept per address.
   * @defaultValue 64
   */
  maxFreeSockets?: number;
  /**
   * An idle connection is closed after this long, in ms: below the 5 s idle timeout common
   * receivers use, so the receiver rarely closes a connection we are about to reuse.
   * @defaultValue 4000
   */
  idleTimeoutMs?: number;
}

/** The pool of agents one delivery engine owns. */
export interface DeliveryAgents {
  /** The agent for connections pinned to `address`, over plain HTTP or TLS. */
  agentFor(plain: boolean, address: string): HttpAgent;
  /** Closes every kept connection; later deliveries open new ones. */
  destroy(): void;
}

/**
 * Creates the pool.
 * @example const agents = createDeliveryAgents(); await deliverEvent(url, event, { agents }); agents.destroy();
 */
export function createDeliveryAgents(options: DeliveryAgentsOptions = {}): DeliveryAgents {
  const maxAgents = options.maxAgents ?? 64;
  const agentOptions = { keepAlive: true, maxFreeSockets: options.maxFreeSockets ?? 64, timeout: options.idleTimeoutMs ?? 4000 };
  const agents = new Map<string, HttpAgent>();
  return {
    agentFor(plain, address) {
      const key = `${plain ? 'http' : 'https'} ${address}`;
      let agent = agents.get(key);
      if (agent) agents.delete(key); // re-inserted last: the most recently used
      agent ??= plain ? new HttpAgent(agentOptions) : new HttpsAgent(agentOptions);
      agents.set(key, agent);
      if (agents.size > maxAgents) {
        const [oldestKey, oldest] = agents.entries().next().value as [string, HttpAgent];
        agents.delete(oldestKey);
        oldest.destroy();
      }
      return agent;
    },
    destroy() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
