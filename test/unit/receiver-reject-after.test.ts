/** `rejectAfterMs`: a bounded wait for Redis, whose lapse is "unknown" (StoreUnavailableError), never "not applied". */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rejectAfterMs } from '../../client/webhooks/redis/reject-after.js';
import { StoreUnavailableError } from '../../client/webhooks/store.js';

afterEach(() => vi.useRealTimers());

const settled = async <T>(promise: Promise<T>) => {
  const state: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (value) => Object.assign(state, { value, done: true }),
    (error: unknown) => Object.assign(state, { error, done: true }),
  );
  await vi.advanceTimersByTimeAsync(0);
  return state;
};

describe('rejectAfterMs', () => {
  it("answers with the command's answer when it comes in time, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const answer = rejectAfterMs(Promise.resolve('OK'), 1000, 'the recording');
    await expect(answer).resolves.toBe('OK');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the command's own failure on, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const failure = new Error('READONLY');
    await expect(rejectAfterMs(Promise.reject(failure), 1000, 'the recording')).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with StoreUnavailableError naming the command and the wait, exactly when the wait is over', async () => {
    vi.useFakeTimers();
    let answer!: (value: string) => void;
    const state = await settled(rejectAfterMs(new Promise<string>((resolve) => (answer = resolve)), 1000, 'the recording'));
    await vi.advanceTimersByTimeAsync(999);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.error).toBeInstanceOf(StoreUnavailableError);
    expect((state.error as Error).message).toBe('Redis did not answer the recording within 1000 ms');
    // An answer after the lapse changes nothing: the caller was told "unknown".
    answer('OK');
    await vi.advanceTimersByTimeAsync(0);
    expect(state.value).toBeUndefined();
  });
});
