/** The server's Prometheus metrics: the registry's contents and the listener that serves them. */
export { createServerMetrics, DELIVERY_SECONDS_BUCKETS } from './server-metrics.js';
export type { ServerMetrics, ServerMetricsOptions } from './server-metrics.js';
export { startMetricsListener } from './metrics-listener.js';
export type { MetricsListener, MetricsListenerOptions } from './metrics-listener.js';
export { isResumeRequest, resumeResultLabel, RESUME_RESULT_LABELS } from './resume-result-label.js';
export type { ResumeResultLabel } from './resume-result-label.js';
