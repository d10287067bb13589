/**
 * The packages' one in-process job queue (memory delivery, the receiver kit's memory store): FIFO,
 * `concurrency` runs at once, re-runs after a delay on the platform's timers, a close that waits.
 * What a run does and records is the caller's. Web-platform code: no Node built-in.
 */

type Timer = ReturnType<typeof setTimeout>;

/** One run of an item: resolves the wait in ms before the item runs again, or undefined when it is finished. */
export type MemoryQueueRun<T> = (item: T) => Promise<number | undefined>;

/** Options of `createMemoryQueue`. */
export interface MemoryQueueOptions<T> {
  /** Runs under way at once, across all items (an integer ≥ 1). */
  concurrency: number;
  /**
   * Items held at most: waiting, delayed or running (an integer ≥ 1); past it `push` answers
   * `full`. Each costs the queue, beyond the item itself, about 30 B while waiting or running
   * (its place in the set of held items and in the waiting list) and about 280 B while delayed
   * (its timer), as measured on Node 20 with 100 000 items.
   */
  maxItems: number;
  /** A run threw: a defect of the caller, not a failed attempt. The item leaves the queue. */
  onDefect(item: T, error: unknown): void;
}

/** What `push` did: `queued`, or why not (`closed`, `full`, or `held`: the item is in the queue already). */
export type MemoryQueuePush = 'queued' | 'closed' | 'full' | 'held';

/** How a close treats the work left. */
export interface MemoryQueueCloseOptions<T> {
  /** A delayed item at close: `run` runs once more now; `drop` leaves the queue unrun, handed to `onDrop`. */
  delayed: 'run' | 'drop';
  /**
   * Called at once for each delayed item dropped (`delayed: 'drop'`).
   * @defaultValue none
   */
  onDrop?(item: T): void;
  /**
   * Longest wait for the runs, in ms; what is unfinished then is given up: a waiting item never
   * starts, a running one is not run again.
   * @defaultValue no limit: the close waits until every run has finished
   */
  timeoutMs?: number;
}

/** An in-process job queue; see `createMemoryQueue`. */
export interface MemoryQueue<T> {
  /** Runs held items with `run` from now on; before it, items wait. Called once. */
  start(run: MemoryQueueRun<T>): void;
  /** Takes an item, its first run after `delayMs` (0: on a later turn). */
  push(item: T, delayMs?: number): MemoryQueuePush;
  /** Makes a delayed item due now; false when it is not delayed. */
  runNow(item: T): boolean;
  /** The items held (waiting, delayed or running), the oldest first. */
  items(): IterableIterator<T>;
  /** True from the start of `close`: `push` answers `closed` and no run is run again. */
  readonly closing: boolean;
  /** Takes no more items and waits for the runs left; resolves the items given up at the timeout. */
  close(options: MemoryQueueCloseOptions<T>): Promise<T[]>;
}

let immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;

/**
 * Runs `fn` after the current turn: `setImmediate` where there is one (Node, Bun: the cheapest),
 * else `setTimeout(fn, 0)` (workerd, Deno, browsers).
 */
function later(fn: () => void): void {
  if (immediate) {
    try {
      immediate(fn);
      return;
    } catch {
      // Next.js's Edge runtime defines setImmediate as a stub that throws ("a Node.js API is
      // used"): scheduling failed, `fn` did not run; setTimeout schedules it, now and from here on.
      immediate = undefined;
    }
  }
  setTimeout(fn, 0);
}

/**
 * The state of one queue, shared by its parts. A run never starts inside a call of the
 * caller's (`start`, `push`, `runNow`): only on a later turn, so that a caller answers (a
 * webhook's 200, a resume) before any run begins.
 */
interface QueueState<T> {
  options: MemoryQueueOptions<T>;
  /** Every item held, in the order it came. */
  held: Set<T>;
  /** Items due, the next first. */
  ready: T[];
  /** Items waiting for their delay, with its timer. */
  delayed: Map<T, Timer>;
  running: number;
  run: MemoryQueueRun<T> | undefined;
  /** From the start of `close`: nothing new is taken, no item is run again. */
  closing: boolean;
  /** A pump is due on a later turn (one for any number of pushes). */
  pumpDue: boolean;
  /** Resolved when nothing is held. */
  idle: (() => void)[];
}

/**
 * Creates an in-process job queue: FIFO, `concurrency` runs at once, delayed runs on the
 * platform's timers, bounded by `maxItems`. A pending timer keeps a Node process alive, as any
 * work does; on workerd it lives as long as the request's work (hand `waitUntil` the caller's
 * promise for the item).
 * @example
 * const queue = createMemoryQueue<Job>({ concurrency: 1, maxItems: 1000, onDefect: (job, err) => console.error(err) });
 * queue.start(async (job) => ((await job.attempt()) ? undefined : 1000));
 * queue.push(job);
 */
export function createMemoryQueue<T>(options: MemoryQueueOptions<T>): MemoryQueue<T> {
  const s: QueueState<T> = { options, held: new Set(), ready: [], delayed: new Map(), running: 0, run: undefined, closing: false, pumpDue: false, idle: [] };
  const pump = () => {
    if (s.pumpDue) return;
    s.pumpDue = true;
    later(() => {
      s.pumpDue = false;
      pumpQueue(s);
    });
  };
  return {
    start(run) {
      s.run = run;
      // Nothing is scheduled for an empty queue: workerd refuses a timer outside a request, and
      // a receiver is often created at a Worker's module scope.
      if (s.ready.length > 0) pump();
    },
    push(item, delayMs = 0) {
      if (s.closing) return 'closed';
      if (s.held.has(item)) return 'held';
      if (s.held.size >= options.maxItems) return 'full';
      s.held.add(item);
      if (delayMs > 0) delay(s, item, delayMs);
      else {
        s.ready.push(item);
        pump();
      }
      return 'queued';
    },
    runNow(item) {
      const timer = s.delayed.get(item);
      if (timer === undefined) return false;
      clearTimeout(timer);
      s.delayed.delete(item);
      s.ready.push(item);
      pump();
      return true;
    },
    items: () => s.held.values(),
    get closing() {
      return s.closing;
    },
    close: (closeOptions) => closeQueue(s, closeOptions),
  };
}

/** Starts due items while a run slot is free. */
function pumpQueue<T>(s: QueueState<T>): void {
  while (s.run && s.running < s.options.concurrency && s.ready.length > 0) {
    s.running++;
    void runItem(s, s.run, s.ready.shift() as T);
  }
}

/** One run of one item, and what follows it: another run after its delay, or leaving the queue. */
async function runItem<T>(s: QueueState<T>, run: MemoryQueueRun<T>, item: T): Promise<void> {
  let next: number | undefined;
  try {
    next = await run(item);
  } catch (error) {
    next = undefined;
    s.options.onDefect(item, error);
  } finally {
    s.running--;
  }
  if (next === undefined || s.closing) leave(s, item);
  else if (next > 0) delay(s, item, next);
  else s.ready.push(item);
  pumpQueue(s);
}

/** Puts an item back once `delayMs` has passed. */
function delay<T>(s: QueueState<T>, item: T, delayMs: number): void {
  const timer = setTimeout(() => {
    s.delayed.delete(item);
    s.ready.push(item);
    pumpQueue(s);
  }, delayMs);
  s.delayed.set(item, timer);
}

function leave<T>(s: QueueState<T>, item: T): void {
  s.held.delete(item);
  if (s.held.size > 0) return;
  for (const resolve of s.idle.splice(0)) resolve();
}

/** Closing: delayed items run now or leave; then the wait for the runs, at most `timeoutMs`. */
async function closeQueue<T>(s: QueueState<T>, { delayed, onDrop, timeoutMs }: MemoryQueueCloseOptions<T>): Promise<T[]> {
  s.closing = true;
  for (const [item, timer] of s.delayed) {
    clearTimeout(timer);
    s.delayed.delete(item);
    if (delayed === 'run') s.ready.push(item);
    else {
      leave(s, item);
      onDrop?.(item);
    }
  }
  pumpQueue(s);
  if (s.held.size === 0 || (await idleWithin(s, timeoutMs))) return [];
  // Given up: a waiting item never starts, a running one leaves when it ends.
  const unfinished = [...s.held];
  s.held.clear();
  s.ready.length = 0;
  return unfinished;
}

/** Whether the queue holds nothing before `timeoutMs` passes (no limit when undefined). */
async function idleWithin<T>(s: QueueState<T>, timeoutMs: number | undefined): Promise<boolean> {
  const idle = new Promise<true>((resolve) => s.idle.push(() => resolve(true)));
  if (timeoutMs === undefined) return idle;
  let timer: Timer | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const outcome = await Promise.race([idle, timedOut]);
  clearTimeout(timer);
  return outcome;
}
