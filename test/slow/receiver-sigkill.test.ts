/**
 * Crash safety: a receiver process SIGKILLed right after it answered 200, while its handler
 * runs, 20 times; every event is processed after restart (BullMQ stalled-job recovery), none
 * twice.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { SessionEvent } from '../../client/webhooks/index.js';
import { deletePrefix, uniquePrefix } from '../helpers/redis-keys.js';
import { countBy, doneIds, startReceiverProcess, type ReceiverProcess } from '../helpers/receiver-processes.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
const prefix = uniquePrefix('e2e-sigkill');
const all: ReceiverProcess[] = [];
afterAll(async () => {
  await Promise.all(all.map((p) => p.kill()));
  await deletePrefix(redisUrl, prefix);
});

describe('SIGKILL after 200, before the handler finished', () => {
  it('20 kills: every event processed after restart, none twice', { timeout: 240_000 }, async () => {
    const config = {
      redisUrl,
      prefix,
      // The handler outlives each process by far: the kill always lands before it finished.
      handlerMs: 5_000,
      concurrency: 25,
      // Short lock and stalled check, so recovery takes seconds instead of 30 s.
      lockDurationMs: 2_000,
      stalledIntervalMs: 1_000,
      // A recovered job may land in the next process that is killed too.
      maxStalledCount: 25,
    };
    const ids: string[] = [];
    const started = (p: ReceiverProcess, id: string) => p.lines.some((l) => l.startsWith(`START ${id} `));
    for (let i = 0; i < 20; i++) {
      const proc = await startReceiverProcess(config);
      all.push(proc);
      const id = `sess_kill_${Date.now()}_${i}`;
      ids.push(id);
      const event: SessionEvent = { event: 'session.resumed', session: { id }, timestamp: new Date().toISOString() };
      const res = await fetch(`${proc.url}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
      expect(res.status).toBe(200);
      // Killed once the handler of this event started in this process (the job is active and locked).
      await waitFor(() => started(proc, id), { timeoutMs: 10_000, intervalMs: 10 });
      await proc.kill('SIGKILL');
      expect(doneIds([proc])).not.toContain(id);
    }
    const survivor = await startReceiverProcess(config);
    all.push(survivor);
    await waitFor(() => ids.every((id) => doneIds(all).includes(id)), { timeoutMs: 60_000, what: 'all 20 events processed' });
    // Longer than a lock plus a stalled check: nothing runs a second time.
    await new Promise((r) => setTimeout(r, 4_000));
    const counts = countBy(doneIds(all));
    expect(ids.map((id) => counts.get(id))).toEqual(ids.map(() => 1));
    const starts = all.flatMap((p) => p.lines.filter((l) => l.startsWith('START '))).length;
    console.log(`SIGKILL x20: 20/20 events processed once after restart; ${starts} handler starts in total (${starts - 20} interrupted by kills)`);
  });
});
