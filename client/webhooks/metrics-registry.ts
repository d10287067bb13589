/** The registry type of the receiver's `metrics` option, in a file of its own so that the package's public types never load prom-client. */
/**
 * The part of a prom-client `Registry` the receiver uses: a registry passes as it is, and the
 * package's types need no prom-client installed.
 */
export interface MetricsRegistry {
  getSingleMetric(name: string): unknown;
  registerMetric(metric: never): void;
  metrics(): Promise<string>;
}
