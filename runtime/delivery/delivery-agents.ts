/**
 * Keep-alive for deliveries that keeps the pinned-address guard: one `Agent` per checked address, so
 * a kept connection is reused only by a delivery whose own DNS check pinned that address. Bounded:
 * `maxAgents` addresses (least recently used closed), `maxFreeSockets` idle connections each.
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
   * Idle connection lifetime in ms: under the common 5 s receiver idle timeout, so the receiver rarely closes one we reuse.
   * @defaultValue 4000
   */
  idleTimeoutMs?: number;
}

/** The pool of agents one delivery engine owns. */
export interface DeliveryAgents {
  agentFor(plain: boolean, address: string): HttpAgent;
  destroy(): void;
}

/** The engine's pool: pass it to each `deliverEvent` as `agents`; `destroy()` at close. */
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
