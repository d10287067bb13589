/** Prometheus metrics of a process when METRICS_PORT is set; prom-client is loaded only then. */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.js';
import type { ServerMetrics } from '../metrics/index.js';

/** The metrics of one process. */
export interface MetricsRuntime {
  metrics: ServerMetrics;
  /** Starts the listener on METRICS_PORT (and HOST). */
  listen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The metrics of this process, or undefined when METRICS_PORT is unset.
 * @example const metrics = await startMetrics(config, logger); await metrics?.listen();
 */
export async function startMetrics(config: Pick<ServerConfig, 'metricsPort' | 'host'>, logger: Logger): Promise<MetricsRuntime | undefined> {
  const port = config.metricsPort;
  if (port === undefined) return undefined;
  const { createServerMetrics, startMetricsListener } = await import('../metrics/index.js');
  const metrics = createServerMetrics();
  let listener: Awaited<ReturnType<typeof startMetricsListener>> | undefined;
  return {
    metrics,
    async listen() {
      listener = await startMetricsListener({ registry: metrics.registry, port, host: config.host });
      logger.info({ metrics: listener.url, port: listener.port }, `metrics at ${listener.url}`);
    },
    close: async () => listener?.close(),
  };
}
