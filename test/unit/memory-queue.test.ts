/**
 * The one in-process job queue (runtime/memory-queue.ts) that memory delivery and the receiver
 * kit's memory store both run on: order, the concurrency bound, the bound on items, delayed
 * runs, and the two ways a close treats the work left. Real timers; delays that should not
 * fire are long enough never to, and nothing asserts how long anything took.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryQueue, type MemoryQueueRun } from '@session-resume-api/runtime/memory-queue';
import { waitFor } from '../helpers/wait-for.js';

/** A delay no test outlives: an item delayed by it runs again only through `runNow` or a close. */
const NEVER_MS = 3_600_000;

/** A promise to release by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A queue whose runs are recorded and wait for their item's gate. */
function gatedQueue(concurrency: number, maxItems = 100) {
  const started: string[] = [];
  const defects: unknown[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  let inFlight = 0;
  let mostInFlight = 0;
  const queue = createMemoryQueue<string>({ concurrency, maxItems, onDefect: (_item, error) => void defects.push(error) });
  const run: MemoryQueueRun<string> = async (item) => {
    started.push(item);
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    if (!gates.has(item)) gates.set(item, gate());
    await gates.get(item)?.opened;
    inFlight--;
    return undefined;
  };
  const release = (item: string) => {
    if (!gates.has(item)) gates.set(item, gate());
    gates.get(item)?.open();
  };
  return { queue, run, started, defects, release, mostInFlight: () => mostInFlight };
}

const aTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('the memory queue', () => {
  it('runs items in the order they came, at most `concurrency` at once, never inside push', async () => {
    const q = gatedQueue(2);
    q.queue.start(q.run);
    for (const item of ['a', 'b', 'c', 'd', 'e']) expect(q.queue.push(item)).toBe('queued');
    expect(q.started).toEqual([]);
    await waitFor(() => q.started.length === 2, { what: 'the first two runs' });
    for (const item of ['a', 'b', 'c', 'd', 'e']) q.release(item);
    await waitFor(() => q.started.length === 5, { what: 'every run' });
    expect(q.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(q.mostInFlight()).toBe(2);
    expect(await q.queue.close({ delayed: 'run' })).toEqual([]);
    expect([...q.queue.items()]).toEqual([]);
  });

  it('holds items until start', async () => {
    const q = gatedQueue(1);
    q.queue.push('a');
    await aTurn();
    expect(q.started).toEqual([]);
    q.release('a');
    q.queue.start(q.run);
    await waitFor(() => q.started.length === 1, { what: 'the run after start' });
    await q.queue.close({ delayed: 'run' });
  });

  it('is bounded: past maxItems it answers full, an item held already is held, after close it is closed', async () => {
    const q = gatedQueue(1, 2);
    expect(q.queue.push('a')).toBe('queued');
    expect(q.queue.push('a')).toBe('held');
    expect(q.queue.push('b', NEVER_MS)).toBe('queued');
    expect(q.queue.push('c')).toBe('full');
    expect([...q.queue.items()]).toEqual(['a', 'b']);
    await q.queue.close({ delayed: 'drop', timeoutMs: 1 });
    expect(q.queue.push('d')).toBe('closed');
  });

  it('runs an item again after the delay its run asks for, and runNow makes a delayed item due', async () => {
    const runs: string[] = [];
    const queue = createMemoryQueue<string>({ concurrency: 1, maxItems: 10, onDefect: () => {} });
    queue.start(async (item) => {
      runs.push(item);
      if (item === 'soon') return runs.filter((r) => r === 'soon').length < 2 ? 1 : undefined;
      return runs.filter((r) => r === 'later').length < 2 ? NEVER_MS : undefined;
    });
    queue.push('soon');
    queue.push('later');
    await waitFor(() => runs.filter((r) => r === 'soon').length === 2 && runs.includes('later'), { what: 'the delayed run' });
    expect(queue.runNow('soon')).toBe(false);
    expect(queue.runNow('later')).toBe(true);
    await waitFor(() => runs.filter((r) => r === 'later').length === 2, { what: 'the run made due' });
    expect(await queue.close({ delayed: 'run' })).toEqual([]);
  });

  it("close with delayed 'run' runs each delayed item once more and waits for the runs under way", async () => {
    const runs: [string, boolean][] = [];
    const slow = gate();
    const queue = createMemoryQueue<string>({ concurrency: 2, maxItems: 10, onDefect: () => {} });
    queue.start(async (item) => {
      runs.push([item, queue.closing]);
      if (item === 'slow') await slow.opened;
      // Asks for another run every time: while closing, the queue schedules none.
      return NEVER_MS;
    });
    queue.push('waiting');
    queue.push('slow');
    await waitFor(() => runs.length === 2, { what: 'the first runs' });
    let closed = false;
    const closing = queue.close({ delayed: 'run' }).then((unfinished) => ((closed = true), unfinished));
    await waitFor(() => runs.length === 3, { what: 'the final run of the delayed item' });
    expect(runs[2]).toEqual(['waiting', true]);
    await aTurn();
    expect(closed).toBe(false);
    slow.open();
    expect(await closing).toEqual([]);
    expect(runs).toHaveLength(3);
  });

  it("close with delayed 'drop' hands each delayed item to onDrop, unrun", async () => {
    const runs: string[] = [];
    const dropped: string[] = [];
    const queue = createMemoryQueue<string>({ concurrency: 1, maxItems: 10, onDefect: () => {} });
    queue.start(async (item) => (runs.push(item), NEVER_MS));
    queue.push('retrying');
    queue.push('first-run-later', NEVER_MS);
    await waitFor(() => runs.length === 1, { what: 'the first run' });
    expect(await queue.close({ delayed: 'drop', onDrop: (item) => dropped.push(item) })).toEqual([]);
    expect(dropped.sort()).toEqual(['first-run-later', 'retrying']);
    expect(runs).toEqual(['retrying']);
  });

  it('close gives up at its timeout what is unfinished: a waiting item never starts', async () => {
    const q = gatedQueue(1);
    q.queue.start(q.run);
    q.queue.push('stuck');
    q.queue.push('waiting');
    await waitFor(() => q.started.length === 1, { what: 'the first run' });
    expect(await q.queue.close({ delayed: 'run', timeoutMs: 20 })).toEqual(['stuck', 'waiting']);
    q.release('stuck');
    await aTurn();
    expect(q.started).toEqual(['stuck']);
    expect([...q.queue.items()]).toEqual([]);
  });

  it('a run that throws is a defect: reported, and the item leaves the queue', async () => {
    const defects: [string, unknown][] = [];
    const bug = new Error('bug');
    const queue = createMemoryQueue<string>({ concurrency: 1, maxItems: 10, onDefect: (item, error) => void defects.push([item, error]) });
    queue.start(async () => {
      throw bug;
    });
    queue.push('a');
    await waitFor(() => defects.length === 1, { what: 'the defect' });
    expect(defects).toEqual([['a', bug]]);
    expect([...queue.items()]).toEqual([]);
    expect(await queue.close({ delayed: 'run' })).toEqual([]);
  });
});
