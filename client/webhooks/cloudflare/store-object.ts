/**
 * The Durable Object that holds a receiver's records: one object per receiver name, strongly
 * consistent (a Durable Object runs one request at a time between its storage operations, and
 * its answer is held until its writes are durable), so every Worker instance that binds its
 * namespace shares one dedupe record per event. Keys in its storage:
 * `e:<id>` the event, `k:<key>` and `w:<webhook-id>` its identities, `q:<due>:<id>` events
 * waiting for an attempt (by when they may be claimed), `x:<expiry>:<id>` the dedupe window,
 * `d:<received>:<id>` dead letters, `s:<session>` order marks, `n` the count.
 */
import { isOlderPosition } from '../order-position.js';
import type { DeadLetter, RecordedEvent, SessionPosition } from '../store.js';
import type { FinishCall, RecordAnswer, RecordCall, StoreCall } from './protocol.js';

/** The part of a Durable Object's storage this object uses (the asynchronous key-value API). */
export interface DurableObjectStorageLike {
  get<T>(key: string): Promise<T | undefined>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list<T>(options: { prefix?: string; start?: string; end?: string; limit?: number }): Promise<Map<string, T>>;
}

/** What workerd hands a Durable Object's constructor (its `ctx`). */
export interface DurableObjectStateLike {
  storage: DurableObjectStorageLike;
}

interface StoredEvent {
  id: string;
  key: string;
  webhookId?: string;
  event?: RecordedEvent['event'];
  receivedAt: number;
  expiresAt: number;
  state: 'queued' | 'active' | 'done' | 'dead';
  attempts: number;
  /** Queued: when it may be attempted; active: when its lease ends and another caller may take it. */
  dueAt: number;
  error?: string;
}

/** Expired records removed per call: keeps each call short, and its delete within the 128 keys storage takes at once (4 keys each). */
const EXPIRE_PER_CALL = 30;
const pad = (ms: number) => String(ms).padStart(15, '0');
const queueKey = (e: StoredEvent) => `q:${pad(e.dueAt)}:${e.id}`;
const expiryKey = (e: StoredEvent) => `x:${pad(e.expiresAt)}:${e.id}`;
const deadKey = (e: StoredEvent) => `d:${pad(e.receivedAt)}:${e.id}`;
const recordedOf = (e: StoredEvent): RecordedEvent => ({ id: e.id, key: e.key, event: e.event!, receivedAt: e.receivedAt, attempt: e.attempts });

/**
 * The receiver store's Durable Object class: export it from your Worker and bind it in
 * `wrangler.toml` (`[[durable_objects.bindings]]` and a migration); `createDurableObjectStore`
 * talks to it.
 */
export class WebhookStoreObject {
  readonly #storage: DurableObjectStorageLike;

  constructor(state: DurableObjectStateLike) {
    this.#storage = state.storage;
  }

  /** One call of the store (protocol.ts), answered as JSON. */
  async fetch(request: Request): Promise<Response> {
    const call = (await request.json()) as StoreCall;
    return Response.json(await this.#handle(call, Date.now()));
  }

  #handle(call: StoreCall, now: number): Promise<unknown> {
    switch (call.op) {
      case 'record':
        return this.#record(call, now);
      case 'finish':
        return this.#finish(call, now);
      case 'claim':
        return this.#claimOne(call.id, call.leaseMs, now);
      case 'deadLetters':
        return this.#deadLetters();
      case 'retry':
        return this.#retry(call.id, now);
      case 'advance':
        return this.#advance(call.position, call.windowMs, now);
    }
  }

  async #live(ref: string | undefined, now: number): Promise<StoredEvent | undefined> {
    const id = ref === undefined ? undefined : await this.#storage.get<string>(ref);
    const entry = id === undefined ? undefined : await this.#storage.get<StoredEvent>(`e:${id}`);
    return entry && entry.expiresAt > now ? entry : undefined;
  }

  async #record(call: RecordCall, now: number): Promise<RecordAnswer> {
    // The caller answered 503 and the sender will retry: a write arriving now must change nothing.
    if (now > call.deadline) return { late: true };
    await this.#expire(now);
    const existing = (await this.#live(`k:${call.key}`, now)) ?? (await this.#live(call.webhookId === undefined ? undefined : `w:${call.webhookId}`, now));
    if (existing) {
      // A dedupe record never suppresses a retry of a failed processing: a dead letter is queued again.
      if (existing.state === 'dead') await this.#requeue(existing, now);
      return { id: existing.id, duplicate: true, claimed: await this.#claimDue(call.sweepLimit, call.leaseMs, now) };
    }
    const count = (await this.#storage.get<number>('n')) ?? 0;
    if (count >= call.maxEvents) return { full: true };
    const entry: StoredEvent = { id: crypto.randomUUID(), key: call.key, webhookId: call.webhookId, event: call.event, receivedAt: now, expiresAt: now + call.windowMs, state: 'active', attempts: 1, dueAt: now + call.leaseMs };
    await this.#storage.put({
      [`e:${entry.id}`]: entry,
      [`k:${call.key}`]: entry.id,
      ...(call.webhookId === undefined ? {} : { [`w:${call.webhookId}`]: entry.id }),
      [queueKey(entry)]: entry.id,
      [expiryKey(entry)]: entry.id,
      n: count + 1,
    });
    const others = await this.#claimDue(call.sweepLimit, call.leaseMs, now);
    return { id: entry.id, duplicate: false, claimed: [recordedOf(entry), ...others] };
  }

  /** Moves an entry in the queue index to a new state and due time. */
  async #save(entry: StoredEvent, next: Partial<StoredEvent>, extra: Record<string, unknown> = {}): Promise<StoredEvent> {
    const before = queueKey(entry);
    const wasQueued = entry.state === 'queued' || entry.state === 'active';
    Object.assign(entry, next);
    const queued = entry.state === 'queued' || entry.state === 'active';
    if (wasQueued && (!queued || queueKey(entry) !== before)) await this.#storage.delete([before]);
    await this.#storage.put({ [`e:${entry.id}`]: entry, ...(queued ? { [queueKey(entry)]: entry.id } : {}), ...extra });
    return entry;
  }

  async #requeue(entry: StoredEvent, now: number): Promise<void> {
    await this.#storage.delete([deadKey(entry)]);
    await this.#save(entry, { state: 'queued', attempts: 0, dueAt: now, error: undefined });
  }

  /** Claims up to `limit` events whose retry time came or whose lease ran out (their caller died). */
  async #claimDue(limit: number, leaseMs: number, now: number): Promise<RecordedEvent[]> {
    if (limit <= 0) return [];
    const due = await this.#storage.list<string>({ prefix: 'q:', end: `q:${pad(now + 1)}`, limit });
    const claimed: RecordedEvent[] = [];
    for (const id of due.values()) {
      const entry = await this.#storage.get<StoredEvent>(`e:${id}`);
      if (entry?.event) claimed.push(recordedOf(await this.#save(entry, { state: 'active', attempts: entry.attempts + 1, dueAt: now + leaseMs })));
    }
    return claimed;
  }

  async #claimOne(id: string, leaseMs: number, now: number): Promise<RecordedEvent | null> {
    const entry = await this.#storage.get<StoredEvent>(`e:${id}`);
    if (!entry?.event || entry.state !== 'queued' || entry.dueAt > now) return null;
    return recordedOf(await this.#save(entry, { state: 'active', attempts: entry.attempts + 1, dueAt: now + leaseMs }));
  }

  async #finish(call: FinishCall, now: number): Promise<boolean> {
    const entry = await this.#storage.get<StoredEvent>(`e:${call.id}`);
    // An attempt whose lease another caller took over reports nothing.
    if (!entry || entry.state !== 'active' || entry.attempts !== call.attempt) return false;
    if (call.ok) await this.#save(entry, { state: 'done', event: undefined });
    else if (call.final) await this.#save(entry, { state: 'dead', error: call.error }, { [deadKey(entry)]: entry.id });
    else await this.#save(entry, { state: 'queued', error: call.error, dueAt: now + (call.retryDelayMs ?? 0) });
    return true;
  }

  async #deadLetters(): Promise<DeadLetter[]> {
    const ids = await this.#storage.list<string>({ prefix: 'd:' });
    const letters: DeadLetter[] = [];
    for (const id of ids.values()) {
      const e = await this.#storage.get<StoredEvent>(`e:${id}`);
      if (e?.event) letters.push({ id: e.id, key: e.key, event: e.event, receivedAt: e.receivedAt, attempts: e.attempts, error: e.error ?? '' });
    }
    return letters;
  }

  async #retry(id: string, now: number): Promise<boolean> {
    const entry = await this.#storage.get<StoredEvent>(`e:${id}`);
    if (entry?.state !== 'dead') return false;
    await this.#requeue(entry, now);
    return true;
  }

  async #advance(position: SessionPosition, windowMs: number, now: number): Promise<boolean> {
    type Mark = { time: number; arrival: number; id: string; expiresAt: number };
    const mark = await this.#storage.get<Mark>(`s:${position.sessionId}`);
    const newest = mark && mark.expiresAt > now ? mark : undefined;
    if (newest && isOlderPosition(position, newest)) return false;
    const { time, arrival, id } = newest && !isOlderPosition(newest, position) ? newest : position;
    await this.#storage.put({ [`s:${position.sessionId}`]: { time, arrival, id, expiresAt: now + windowMs } });
    return true;
  }

  /** Drops records past their window: a handled one whole, a dead letter's identities (it stays listed). */
  async #expire(now: number): Promise<void> {
    const expired = await this.#storage.list<string>({ prefix: 'x:', end: `x:${pad(now + 1)}`, limit: EXPIRE_PER_CALL });
    if (expired.size === 0) return;
    const drop: string[] = [...expired.keys()];
    let count = (await this.#storage.get<number>('n')) ?? 0;
    for (const id of expired.values()) {
      const entry = await this.#storage.get<StoredEvent>(`e:${id}`);
      if (!entry) continue;
      if (entry.state === 'queued' || entry.state === 'active') {
        // Still being processed: its dedupe record stays until the processing ends.
        await this.#save(entry, { expiresAt: now + 60_000 }, { [expiryKey({ ...entry, expiresAt: now + 60_000 })]: entry.id });
        continue;
      }
      if ((await this.#storage.get<string>(`k:${entry.key}`)) === id) drop.push(`k:${entry.key}`);
      if (entry.webhookId !== undefined && (await this.#storage.get<string>(`w:${entry.webhookId}`)) === id) drop.push(`w:${entry.webhookId}`);
      if (entry.state === 'done') {
        drop.push(`e:${id}`);
        count -= 1;
      }
    }
    await this.#storage.delete(drop);
    await this.#storage.put({ n: Math.max(0, count) });
  }
}
