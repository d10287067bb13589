/** The Redis Cluster bench section renders each row against its baseline (no load, no timing asserted). */
import { describe, expect, it } from 'vitest';
import { renderClusterSection } from '../../bench/cluster-cases.js';

describe('bench: Redis Cluster section', () => {
  it('states ratios against one instance on one node and against seeding on one node', () => {
    const text = renderClusterSection({
      resume: [
        { name: '1 instance, one Redis node', requestsPerSec: 1000, p99Ms: 10, errors: 0 },
        { name: '1 instance, 3-primary Redis Cluster', requestsPerSec: 900, p99Ms: 12, errors: 0 },
      ],
      seed: [
        { name: 'one Redis node', sessions: 1_000_000, firstMs: 3000, restartMs: 0.4 },
        { name: '3-primary Redis Cluster', sessions: 1_000_000, firstMs: 4500, restartMs: 0.6 },
      ],
    });
    expect(text).toContain('| 1 instance, one Redis node | 1,000 | baseline | 10 | 0 |');
    expect(text).toContain('| 1 instance, 3-primary Redis Cluster | 900 | 0.90× | 12 | 0 |');
    expect(text).toContain('| 3-primary Redis Cluster | 1,000,000 | 4,500 | 1.50× | 0.6 |');
  });
});
