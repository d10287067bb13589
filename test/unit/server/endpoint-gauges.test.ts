/**
 * The endpoint gauges of the server's metrics (docs/metrics.md): a scrape reads the shared
 * endpoint state once for both gauges, and shows its state and its held events.
 */
import { describe, expect, it } from 'vitest';
import { createServerMetrics } from '../../../server/metrics/server-metrics.js';

describe('endpoint gauges', () => {
  it('one scrape reads the endpoint once and shows the state and the held events', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    let reads = 0;
    metrics.watchDelivery({
      stats: async () => ({ pending: 0, delivering: 0, dead: 0 }) as never,
      endpoint: async () => {
        reads++;
        return { state: 'open', held: 7 };
      },
    });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/session_resume_webhook_endpoint_state\{state="open"\} 1/);
    expect(text).toMatch(/session_resume_webhook_endpoint_state\{state="closed"\} 0/);
    expect(text).toMatch(/session_resume_webhook_endpoint_held_events 7/);
    expect(reads).toBe(1);
    await metrics.registry.metrics();
    expect(reads).toBe(2);
  });
});
