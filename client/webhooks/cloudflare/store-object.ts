/**
 * The Durable Object that holds a receiver's records: one object per receiver name, strongly
 * consistent (a Durable Object runs one request at a time between its storage operations, and
 * its answer is held until its writes are durable), so every Worker instance that binds its
 * namespace shares one dedupe record per event. Keys in its storage:
 * `e:<id>` the event, `k:<field>` and `w:<field>` its identities (identity-field.ts: 23
 * characters each), `q:<due>:<id>` events waiting for an attempt (by when they may be claimed),
 * `x:<expiry>:<id>` the dedupe window of an event, `d:<received>:<id>` dead letters, `s:<session>`
 * order marks (`z:<expiry>:<session>` drops each a window after its last move), `n` the count of events. A handled event leaves only its compact record for the
 * rest of the window: `k:<field>` (and `w:<field>`) holding `<expiry>:<id>`, and `y:<expiry>:<field>`
 * holding its webhook-id field or '' (the index that drops it), counted in `r`. Records written
 * before fields (`k:<key>`, `w:<webhook-id>`) are still read and dropped.
 */
import { isOlderPosition } from '../order-position.js';
import type { DeadLetter, RecordedEvent, SessionPosition } from '../store.js';
import type { FinishCall, RecordAnswer, RecordCall, StoreCall } from './protocol.js';
import { identityField, webhookIdField } from '../identity-field.js';

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

/** Options of `WebhookStoreObject` for a subclass (workerd passes only `ctx` and `env`). */
export interface WebhookStoreObjectOptions {
  /**
   * The object's clock, epoch ms: for tests of long dedupe windows, in a subclass.
   * @defaultValue `Date.now`
   */
  now?: () => number;
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
/** Default compact records an object holds at most, when a caller does not say (an earlier version's). */
const DEFAULT_MAX_RECORDS = 1_000_000;
/** The keys of an event's identities, as written now first, then as written before fields. */
const identityKeys = (key: string, webhookId: string | undefined): string[] =>
  webhookId === undefined
    ? [`k:${identityField(key)}`, `k:${key}`]
    : [`k:${identityField(key)}`, `k:${key}`, `w:${webhookIdField(webhookId)}`, `w:${webhookId}`];
/** A compact record's value: `<expiry>:<id>` (an entry's identity holds its id alone, which has no ':'). */
const compactValue = (e: StoredEvent) => `${e.expiresAt}:${e.id}`;
/** The index of a session's order mark by its expiry. */
const markExpiryKey = (expiresAt: number, sessionId: string) => `z:${pad(expiresAt)}:${sessionId}`;
const underWay = (e: StoredEvent) => e.state === 'queued' || e.state === 'active';

/**
 * The receiver store's Durable Object class: export it from your Worker and bind it in
 * `wrangler.toml` (`[[durable_objects.bindings]]` and a migration); `createDurableObjectStore`
 * talks to it.
 */
export class WebhookStoreObject {
  readonly #storage: DurableObjectStorageLike;
  readonly #now: () => number;

  /** `env` is unused; `options` is for a subclass (workerd passes `ctx` and `env` only). */
  constructor(state: DurableObjectStateLike, env?: unknown, options: WebhookStoreObjectOptions = {}) {
    this.#storage = state.storage;
    this.#now = options.now ?? Date.now;
  }

  /** One call of the store (protocol.ts), answered as JSON. */
  async fetch(request: Request): Promise<Response> {
    const call = (await request.json()) as StoreCall;
    return Response.json(await this.#handle(call, this.#now()));
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

  /** The live record an identity key points at: an entry (live while under way, whatever its expiry) or a compact record. */
  async #live(ref: string, now: number): Promise<Pick<StoredEvent, 'id' | 'state'> | StoredEvent | undefined> {
    const value = await this.#storage.get<string>(ref);
    if (value === undefined) return undefined;
    const colon = value.indexOf(':');
    if (colon > 0) return Number(value.slice(0, colon)) > now ? { id: value.slice(colon + 1), state: 'done' } : undefined;
    const entry = await this.#storage.get<StoredEvent>(`e:${value}`);
    return entry && (entry.expiresAt > now || underWay(entry)) ? entry : undefined;
  }

  async #record(c: RecordCall, now: number): Promise<RecordAnswer> {
    // The caller answered 503 and the sender will retry: a write arriving now must change nothing.
    if (now > c.deadline) return { late: true };
    await this.#expire(now);
    const refs = identityKeys(c.key, c.webhookId);
    for (const ref of refs) {
      const existing = await this.#live(ref, now);
      if (!existing) continue;
      // A dedupe record never suppresses a retry of a failed processing: a dead letter is queued again.
      if (existing.state === 'dead') await this.#requeue(existing as StoredEvent, now);
      return { id: existing.id, duplicate: true, claimed: await this.#claimDue(c.sweepLimit, c.leaseMs, now) };
    }
    const count = (await this.#storage.get<number>('n')) ?? 0;
    if (count >= c.maxEvents) return { full: true };
    if (((await this.#storage.get<number>('r')) ?? 0) >= (c.maxRecords ?? DEFAULT_MAX_RECORDS)) return { full: true, records: true };
    const entry: StoredEvent = {
      id: crypto.randomUUID(),
      key: c.key,
      webhookId: c.webhookId,
      event: c.event,
      receivedAt: now,
      expiresAt: now + c.windowMs,
      state: 'active',
      attempts: 1,
      dueAt: now + c.leaseMs,
    };
    await this.#storage.put({
      [`e:${entry.id}`]: entry,
      [refs[0]!]: entry.id,
      ...(c.webhookId === undefined ? {} : { [refs[2]!]: entry.id }),
      [queueKey(entry)]: entry.id,
      [expiryKey(entry)]: entry.id,
      n: count + 1,
    });
    const others = await this.#claimDue(c.sweepLimit, c.leaseMs, now);
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

  async #finish(c: FinishCall, now: number): Promise<boolean> {
    const entry = await this.#storage.get<StoredEvent>(`e:${c.id}`);
    // An attempt whose lease another caller took over reports nothing.
    if (!entry || entry.state !== 'active' || entry.attempts !== c.attempt) return false;
    if (c.ok) await this.#compact(entry);
    else if (c.final) await this.#save(entry, { state: 'dead', error: c.error }, { [deadKey(entry)]: entry.id });
    else await this.#save(entry, { state: 'queued', error: c.error, dueAt: now + (c.retryDelayMs ?? 0) });
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
    if (mark) await this.#storage.delete([markExpiryKey(mark.expiresAt, position.sessionId)]);
    const expiresAt = now + windowMs;
    await this.#storage.put({ [`s:${position.sessionId}`]: { time, arrival, id, expiresAt }, [markExpiryKey(expiresAt, position.sessionId)]: '' });
    return true;
  }

  /** Drops order marks a window after their last move (`z:` indexes them by expiry). */
  async #expireMarks(now: number): Promise<void> {
    const expired = await this.#storage.list<string>({ prefix: 'z:', end: `z:${pad(now + 1)}`, limit: EXPIRE_PER_CALL });
    if (expired.size === 0) return;
    const drop: string[] = [...expired.keys()];
    for (const index of expired.keys()) {
      const sessionKey = `s:${index.slice(index.indexOf(':', 2) + 1)}`;
      const mark = await this.#storage.get<{ expiresAt: number }>(sessionKey);
      if (mark && mark.expiresAt <= now) drop.push(sessionKey);
    }
    await this.#storage.delete(drop);
  }

  /**
   * A handled event leaves its entry, its place in the queue and its window's index, and keeps one
   * compact record per identity until its expiry (`k:`/`w:` then hold `<expiry>:<id>`, `y:` drops them).
   */
  async #compact(entry: StoredEvent): Promise<void> {
    const refs = identityKeys(entry.key, entry.webhookId);
    const mine = await this.#pointingAt(refs, entry.id);
    const [n, r] = [(await this.#storage.get<number>('n')) ?? 0, (await this.#storage.get<number>('r')) ?? 0];
    await this.#storage.delete([`e:${entry.id}`, queueKey(entry), expiryKey(entry), ...mine.filter((ref) => ref !== refs[0] && ref !== refs[2])]);
    const webhookField = entry.webhookId === undefined ? '' : refs[2]!.slice(2);
    await this.#storage.put({
      [refs[0]!]: compactValue(entry),
      ...(webhookField ? { [refs[2]!]: compactValue(entry) } : {}),
      [`y:${pad(entry.expiresAt)}:${refs[0]!.slice(2)}`]: webhookField,
      n: Math.max(0, n - 1),
      r: r + 1,
    });
  }

  /** The keys among `refs` that hold `id` (an entry's identities, either form). */
  async #pointingAt(refs: string[], id: string): Promise<string[]> {
    const mine: string[] = [];
    for (const ref of refs) if ((await this.#storage.get<string>(ref)) === id) mine.push(ref);
    return mine;
  }

  /** Drops records past their window: compact ones, a handled entry of an earlier version whole, a dead letter's identities (it stays listed). */
  async #expire(now: number): Promise<void> {
    await this.#expireCompact(now);
    await this.#expireMarks(now);
    const expired = await this.#storage.list<string>({ prefix: 'x:', end: `x:${pad(now + 1)}`, limit: EXPIRE_PER_CALL });
    if (expired.size === 0) return;
    const drop: string[] = [...expired.keys()];
    let count = (await this.#storage.get<number>('n')) ?? 0;
    for (const id of expired.values()) {
      const entry = await this.#storage.get<StoredEvent>(`e:${id}`);
      if (!entry) continue;
      if (underWay(entry)) {
        // Still being processed: its dedupe record stays until the processing ends.
        await this.#save(entry, { expiresAt: now + 60_000 }, { [expiryKey({ ...entry, expiresAt: now + 60_000 })]: entry.id });
        continue;
      }
      drop.push(...(await this.#pointingAt(identityKeys(entry.key, entry.webhookId), id)));
      if (entry.state === 'done') {
        drop.push(`e:${id}`);
        count -= 1;
      }
    }
    await this.#storage.delete(drop);
    await this.#storage.put({ n: Math.max(0, count) });
  }

  /** Drops compact records past their expiry (a record written again since, by a new event, stays). */
  async #expireCompact(now: number): Promise<void> {
    const expired = await this.#storage.list<string>({ prefix: 'y:', end: `y:${pad(now + 1)}`, limit: EXPIRE_PER_CALL });
    if (expired.size === 0) return;
    const drop: string[] = [...expired.keys()];
    for (const [index, webhookField] of expired) {
      for (const ref of [`k:${index.slice(index.lastIndexOf(':') + 1)}`, ...(webhookField ? [`w:${webhookField}`] : [])]) {
        const value = await this.#storage.get<string>(ref);
        if (value !== undefined && value.indexOf(':') > 0 && Number(value.slice(0, value.indexOf(':'))) <= now) drop.push(ref);
      }
    }
    await this.#storage.delete(drop);
    await this.#storage.put({ r: Math.max(0, ((await this.#storage.get<number>('r')) ?? 0) - expired.size) });
  }
}
