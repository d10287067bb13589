/**
 * Dedupe across receiver processes sharing Redis (source spec §6 rules 3 and 4): one event
 * delivered 50 times over 3 processes runs once, is still a duplicate later in the window and
 * runs again after it; 1,000 distinct events with as many duplicates over 2 processes run
 * exactly 1,000 times.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { SessionEvent } from '../../client/webhooks/index.js';
import { BUCKETS_PER_WINDOW } from '../../client/webhooks/redis/store-scripts.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { countBy, doneIds, startReceiverProcess, type ReceiverProcess } from '../helpers/receiver-processes.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const started: ReceiverProcess[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.kill()));
  for (const p of prefixes) await deletePrefix(redisUrl, p);
});

async function processes(count: number, config: { dedupeWindowSeconds?: number }) {
  const prefix = uniquePrefix('e2e-dedupe');
  prefixes.push(prefix);
  const list = await Promise.all(Array.from({ length: count }, () => startReceiverProcess({ redisUrl, prefix, ...config })));
  started.push(...list);
  return list;
}

async function deliver(url: string, event: SessionEvent): Promise<{ status: number; duplicate?: boolean }> {
  const res = await fetch(`${url}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  const body = (await res.json()) as { duplicate?: boolean };
  return { status: res.status, duplicate: body.duplicate };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('receiver processes sharing Redis', () => {
  it('one event delivered 50 times concurrently over 3 processes runs once; a duplicate within the window; again after it', { timeout: 90_000 }, async () => {
    // A 5 s window stands in for the hour: "10 minutes later" is 2.5 s later here.
    const windowSeconds = 5;
    const procs = await processes(3, { dedupeWindowSeconds: windowSeconds });
    const event: SessionEvent = { event: 'session.resumed', session: { id: 'sess_once' }, timestamp: new Date().toISOString() };
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => deliver(procs[i % 3]!.url, event)));
    // The record was written between t0 and t1.
    const t1 = Date.now();
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.duplicate === false)).toHaveLength(1);
    await waitFor(() => doneIds(procs).length === 1);
    await sleep(1000);
    expect(doneIds(procs)).toEqual(['sess_once']);

    await sleep(Math.max(0, t0 + (windowSeconds * 1000) / 2 - Date.now()));
    expect(await deliver(procs[1]!.url, event)).toEqual({ status: 200, duplicate: true });
    await sleep(500);
    expect(doneIds(procs)).toHaveLength(1);

    // A record is kept at least the window and at most the window plus one of its buckets.
    const longestKeptMs = windowSeconds * 1000 * (1 + 1 / BUCKETS_PER_WINDOW);
    await sleep(Math.max(0, t1 + longestKeptMs + 300 - Date.now()));
    expect(await deliver(procs[2]!.url, event)).toEqual({ status: 200, duplicate: false });
    await waitFor(() => doneIds(procs).length === 2);
    await sleep(500);
    expect(doneIds(procs)).toEqual(['sess_once', 'sess_once']);
  });

  it('1,000 distinct events with 50% duplicates, concurrent over 2 processes, run exactly 1,000 times', { timeout: 120_000 }, async () => {
    const procs = await processes(2, {});
    const run = Date.now();
    const events: SessionEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      event: i % 2 ? 'session.resumed' : 'session.paused',
      session: { id: `sess_${run}_${i}` },
      timestamp: new Date(run + i).toISOString(),
    }));
    // Every event twice (2,000 deliveries, half of them duplicates), shuffled, each copy to a random process.
    const deliveries = [...events, ...events.map((e) => ({ ...e, redelivery: true }))]
      .map((event) => ({ event, url: procs[Math.floor(Math.random() * 2)]!.url, order: Math.random() }))
      .sort((a, b) => a.order - b.order);
    const statuses: number[] = [];
    const firsts: string[] = [];
    let next = 0;
    // 50 deliveries in flight at a time.
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < deliveries.length) {
          const d = deliveries[next++]!;
          const answer = await deliver(d.url, d.event);
          statuses.push(answer.status);
          if (answer.duplicate === false) firsts.push(d.event.session.id);
        }
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(2000);
    expect(firsts).toHaveLength(1000);
    expect(new Set(firsts).size).toBe(1000);
    await waitFor(() => doneIds(procs).length >= 1000, { timeoutMs: 60_000 });
    await sleep(1500);
    const counts = countBy(doneIds(procs));
    expect(counts.size).toBe(1000);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(doneIds(procs)).toHaveLength(1000);
    console.log(
      `1,000 events / 2,000 deliveries over 2 processes: ${doneIds(procs).length} handler runs, per process ${procs.map((p) => doneIds([p]).length).join(' + ')}`,
    );
  });
});
