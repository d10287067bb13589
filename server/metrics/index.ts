/** The server's Prometheus metrics: the registry's contents and the listener that serves them. */
export { createServerMetrics, DELIVERY_SECONDS_BUCKETS } from './server-metrics.js';
export type { ServerMetrics, ServerMetricsOptions } from './server-metrics.js';
export { startMetricsListener } from './metrics-listener.js';
export type { MetricsListener, MetricsListenerOptions } from './metrics-listener.js';
export { isResumeRequest, resumeOutcome, RESUME_OUTCOMES } from './resume-outcome.js';
export type { ResumeOutcome } from './resume-outcome.js';
