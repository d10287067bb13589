/**
 * `webhooks recover` and `webhooks replay` against an engine over a hand-written queue: an event the
 * queue refuses to put back is reported with the queue's reason (text and --json, exit 1), the
 * others still go; and before anything is sent, both say how many of the selected events are
 * older than the dedupe window receivers keep (x-delivery-policy.dedupe.windowMs).
 */
import { describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_POLICY } from '@session-resume-api/runtime/behaviour';
import type { SessionEvent } from '@session-resume-api/runtime/types';
import { createWebhooksCommand } from '../../../server/cli/webhooks-command.js';
import type { DeadEvent } from '../../../server/webhooks/delivery-queue.js';
import { recoverByTime } from '../../../server/webhooks/recover-by-time.js';
import type { RedisDelivery } from '../../../server/webhooks/redis-delivery.js';

const WINDOW_MS = WEBHOOK_DELIVERY_POLICY.dedupe.windowMs;
const FAILED_AT = '2026-11-28T02:30:00.000Z';

/** A dead event created `ageMs` before now. */
function dead(id: string, ageMs: number): DeadEvent {
  const payload: SessionEvent = { event: 'session.resumed', session: { id: `ses_${id}` }, timestamp: new Date(Date.now() - ageMs).toISOString() };
  return { id, payload, target: 'https://hooks.example.com', attempts: 10, reason: 'status 500', failedAt: FAILED_AT };
}

/** An engine whose queue holds `events`; `replay` of an id in `refusals` throws that error; every step is logged in order. */
function engine(events: DeadEvent[], refusals: Record<string, Error> = {}) {
  const steps: string[] = [];
  const replay = async (id: string) => {
    steps.push(`replay ${id}`);
    const refusal = refusals[id];
    if (refusal) throw refusal;
    return true;
  };
  const queue = { listDead: async () => events, replay, listRetrying: async () => [], promote: async () => false };
  const delivery = {
    everWritten: async () => true,
    listDead: async () => events,
    replay,
    replayAll: async () => {
      for (const event of events) await replay(event.id);
      return events.length;
    },
    recover: (options: Parameters<RedisDelivery['recover']>[0]) => recoverByTime(queue as never, options, 0),
  } as unknown as RedisDelivery;
  return { delivery, steps };
}

async function run(delivery: RedisDelivery, steps: string[], args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  let code = -1;
  const io = {
    out: (text: string) => {
      out += text;
      if (text) steps.push(`out ${text}`);
    },
    err: (text: string) => {
      err += text;
      if (text) steps.push(`err ${text}`);
    },
  };
  const group = createWebhooksCommand(
    async (work) => work(delivery, 'test:'),
    io,
    (c) => (code = c),
  );
  await group.parseAsync(args, { from: 'user' });
  return { code, out, err };
}

const window = ['--since', '2026-11-28T02:00:00Z', '--until', '2026-11-28T03:00:00Z'];

describe('webhooks recover', () => {
  it('reports each event the queue could not put back, with its reason, and still puts back the others', async () => {
    const { delivery, steps } = engine([dead('msg_a', 0), dead('msg_b', 0), dead('msg_c', 0)], {
      msg_b: new Error('OOM command not allowed when used memory > maxmemory'),
    });
    const { code, out } = await run(delivery, steps, ['recover', ...window]);
    expect(out).toContain('msg_b  session.resumed ses_msg_b  not requeued: OOM command not allowed when used memory > maxmemory');
    expect(out).toContain('msg_a  session.resumed ses_msg_a  requeued');
    expect(out).toContain('3 dead event(s) in the window; requeued 2; 1 could not be requeued (each with its error above)');
    expect(steps.filter((s) => s.startsWith('replay'))).toEqual(['replay msg_a', 'replay msg_b', 'replay msg_c']);
    expect(code).toBe(1);
  });

  it('--json gives each refused event its error and counts them', async () => {
    const { delivery, steps } = engine([dead('msg_a', 0), dead('msg_b', 0)], { msg_a: new Error("READONLY You can't write against a read only replica.") });
    const { code, out } = await run(delivery, steps, ['recover', ...window, '--json']);
    const result = JSON.parse(out) as { requeued: number; failed: number; events: Array<{ id: string; requeued: boolean; error?: string }> };
    expect(result).toMatchObject({ requeued: 1, failed: 1 });
    expect(result.events).toMatchObject([
      { id: 'msg_a', requeued: false, error: "READONLY You can't write against a read only replica." },
      { id: 'msg_b', requeued: true },
    ]);
    expect(result.events[1]).not.toHaveProperty('error');
    expect(code).toBe(1);
  });

  it('says before sending how many events are older than the dedupe window', async () => {
    const { delivery, steps } = engine([dead('msg_old1', WINDOW_MS + 60_000), dead('msg_new', 1000), dead('msg_old2', 3 * WINDOW_MS)]);
    const { code, out } = await run(delivery, steps, ['recover', ...window]);
    const notice = `2 of 3 event(s) are older than the ${windowText()} dedupe window receivers keep: a receiver may handle them twice.\n`;
    expect(out.startsWith(notice)).toBe(true);
    expect(steps.indexOf(`out ${notice}`)).toBeLessThan(steps.indexOf('replay msg_old1'));
    expect(code).toBe(0);
  });

  it('--json: the notice on stderr before sending, the counts in the result', async () => {
    const { delivery, steps } = engine([dead('msg_old', WINDOW_MS + 60_000), dead('msg_new', 0)]);
    const { out, err } = await run(delivery, steps, ['recover', ...window, '--json']);
    expect(err).toContain('1 of 2 event(s) are older than the');
    expect(steps.findIndex((s) => s.startsWith('err 1 of 2'))).toBeLessThan(steps.indexOf('replay msg_old'));
    expect((JSON.parse(out) as { dedupeWindow: unknown }).dedupeWindow).toEqual({ windowMs: WINDOW_MS, selected: 2, older: 1 });
  });

  it('says nothing of the window when every event is younger than it', async () => {
    const { delivery, steps } = engine([dead('msg_new', 1000)]);
    const { out } = await run(delivery, steps, ['recover', ...window, '--dry-run']);
    expect(out).not.toContain('dedupe window');
    expect(steps.some((s) => s.startsWith('replay'))).toBe(false);
  });
});

describe('webhooks replay', () => {
  it('--all says before sending how many events are older than the dedupe window', async () => {
    const { delivery, steps } = engine([dead('msg_old', WINDOW_MS + 1), dead('msg_new', 0), dead('msg_older', 10 * WINDOW_MS)]);
    const { code, out } = await run(delivery, steps, ['replay', '--all']);
    expect(out).toBe(
      `2 of 3 event(s) are older than the ${windowText()} dedupe window receivers keep: a receiver may handle them twice.\nreplayed 3 event(s)\n`,
    );
    expect(steps.findIndex((s) => s.startsWith('out 2 of 3'))).toBeLessThan(steps.indexOf('replay msg_old'));
    expect(code).toBe(0);
  });

  it('one event, --json: the count of the one selected', async () => {
    const { delivery, steps } = engine([dead('msg_old', WINDOW_MS + 60_000), dead('msg_new', 0)]);
    const { out, err } = await run(delivery, steps, ['replay', 'msg_old', '--json']);
    expect(err).toContain('1 of 1 event(s) are older than the');
    expect(JSON.parse(out)).toEqual({ replayed: 1, dedupeWindow: { windowMs: WINDOW_MS, selected: 1, older: 1 } });
    expect(steps.filter((s) => s.startsWith('replay'))).toEqual(['replay msg_old']);
  });

  it('refuses an id that is not dead, sending nothing', async () => {
    const { delivery, steps } = engine([dead('msg_a', 0)]);
    const { code, err } = await run(delivery, steps, ['replay', 'msg_zzz']);
    expect(err).toContain('No dead event has the webhook-id msg_zzz');
    expect(code).toBe(1);
    expect(steps.some((s) => s.startsWith('replay'))).toBe(false);
  });
});

/** The window as the notice writes it: whole days, hours or minutes. */
function windowText(): string {
  if (WINDOW_MS % 86_400_000 === 0) return `${WINDOW_MS / 86_400_000}-day`;
  if (WINDOW_MS % 3_600_000 === 0) return `${WINDOW_MS / 3_600_000}-hour`;
  return `${WINDOW_MS / 60_000}-minute`;
}
