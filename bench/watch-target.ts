/**
 * The reference server with `session-resume-api watch` in front, in one process: the proxy
 * passes every request on and grades every exchange (every rule, the default window), so the
 * bench compares it with the same server called directly, and with the proxy alone.
 */
import { startWatchProxy } from '../cli/watch/watch-proxy.js';
import type { Exchange } from '../cli/watch/exchange.js';
import { createWatcher } from '../cli/watch/watcher.js';
import type { Target } from './target.js';

/** Puts a watch proxy in front of `server` (with `grade: false`, the proxy alone, no rule run); stopping the target stops both. */
export async function watchInFront(server: Target, grade = true): Promise<Target> {
  const watcher = createWatcher();
  const onExchange = grade ? (exchange: Exchange) => void watcher.observe(exchange) : () => undefined;
  const proxy = await startWatchProxy({ target: server.url, port: 0, kind: 'api', onExchange });
  const stop = async () => {
    await proxy.close();
    await server.stop();
  };
  return { url: proxy.url, close: stop, stop };
}
