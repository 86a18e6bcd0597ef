import { describe, expect, it } from '@jest/globals';
import { TimeoutError, ToolUnavailableError } from './errors.js';
import { ConcurrencyLimiter, isBusyError, validateConcurrencyLimit } from './limiter.js';

const label = { toolId: 'codex', name: 'Codex' };
const never = new AbortController().signal;

describe('ConcurrencyLimiter', () => {
  it('runs up to maxConcurrent at once and hands slots to waiters in arrival order', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 2, maxQueued: 5 }, label);
    const r1 = await limiter.acquire(never);
    const r2 = await limiter.acquire(never);
    const order: number[] = [];
    const w3 = limiter.acquire(never).then((r) => (order.push(3), r));
    const w4 = limiter.acquire(never).then((r) => (order.push(4), r));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    expect(limiter.load()).toEqual({ maxConcurrent: 2, maxQueued: 5, active: 2, queued: 2 });
    r1();
    const r3 = await w3;
    expect(order).toEqual([3]);
    expect(limiter.load()).toMatchObject({ active: 2, queued: 1 });
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    expect(limiter.load()).toMatchObject({ active: 0, queued: 0 });
  });

  it('refuses at once when the queue is full, with a busy error that says when to retry', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 1 }, label);
    const r1 = await limiter.acquire(never);
    const waiting = limiter.acquire(never);
    const refused = await limiter.acquire(never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ToolUnavailableError.isInstance(refused)).toBe(true);
    expect(isBusyError(refused)).toBe(true);
    const err = refused as ToolUnavailableError;
    expect(err.message).toMatch(/Codex is busy: 1 chats running and 1 waiting \(limits 1 and 1\)/);
    expect(err.toolId).toBe('codex');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(60_000);
    r1();
    (await waiting)();
  });

  it('with no queue, refuses the first caller beyond the limit', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 0 }, label);
    const r1 = await limiter.acquire(never);
    await expect(limiter.acquire(never)).rejects.toThrow(/busy/);
    r1();
    (await limiter.acquire(never))();
  });

  it('bases Retry-After on how long slots are held and how many wait', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 10 }, label);
    const r = await limiter.acquire(never);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    r();
    expect(limiter.retryAfterMs()).toBe(2_000); // ~1.6 s held, nobody waiting: one round
    const held = await limiter.acquire(never);
    const waiters = [limiter.acquire(never), limiter.acquire(never)];
    expect(limiter.retryAfterMs()).toBe(5_000); // three rounds of ~1.6 s ahead of a newcomer
    held();
    for (const w of waiters) (await w)();
  });

  it('a waiter whose signal aborts leaves the queue with the signal reason and never gets a slot', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 2 }, label);
    const r1 = await limiter.acquire(never);
    const controller = new AbortController();
    const gone = limiter.acquire(controller.signal);
    const next = limiter.acquire(never);
    controller.abort(new Error('client went away'));
    await expect(gone).rejects.toThrow('client went away');
    expect(limiter.load()).toMatchObject({ active: 1, queued: 1 });
    r1();
    (await next)();
    expect(limiter.load()).toMatchObject({ active: 0, queued: 0 });
  });

  it('a deadline that passes in the queue is a TimeoutError saying it waited for a slot', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 1 }, label);
    const r1 = await limiter.acquire(never);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new TimeoutError('Codex chat timed out after 50 ms', { toolId: 'codex', timeoutMs: 50 }));
    const err = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(TimeoutError.isInstance(err)).toBe(true);
    expect((err as TimeoutError).message).toMatch(/timed out after 50 ms while waiting for a free slot \(1 chats of Codex were running/);
    expect((err as TimeoutError).timeoutMs).toBe(50);
    r1();
  });

  it('an already aborted signal gets nothing', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 1 }, label);
    const controller = new AbortController();
    controller.abort(new Error('late'));
    await expect(limiter.acquire(controller.signal)).rejects.toThrow('late');
    expect(limiter.load()).toMatchObject({ active: 0, queued: 0 });
  });

  it('giving a slot back twice frees it once', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueued: 2 }, label);
    const r1 = await limiter.acquire(never);
    const w2 = limiter.acquire(never);
    const w3 = limiter.acquire(never);
    r1();
    r1();
    const r2 = await w2;
    expect(limiter.load()).toMatchObject({ active: 1, queued: 1 });
    r2();
    (await w3)();
  });

  it('validates limits', () => {
    expect(validateConcurrencyLimit({ maxConcurrent: 3, maxQueued: 0 }, 'x')).toEqual({ maxConcurrent: 3, maxQueued: 0 });
    for (const bad of [
      null,
      {},
      { maxConcurrent: 0, maxQueued: 1 },
      { maxConcurrent: 1.5, maxQueued: 1 },
      { maxConcurrent: 1, maxQueued: -1 },
      { maxConcurrent: '2', maxQueued: 1 },
    ]) {
      expect(() => validateConcurrencyLimit(bad, 'concurrency of codex')).toThrow(/concurrency of codex must be/);
    }
  });
});
