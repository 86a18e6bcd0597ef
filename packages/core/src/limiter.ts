import { TimeoutError, ToolbridgeError, ToolUnavailableError } from './errors.js';

/** How many chats one tool may run at once, and how many more may wait for a slot. */
export interface ConcurrencyLimit {
  /** Chats running at the same time (each one a process for agents). */
  maxConcurrent: number;
  /** Chats waiting for a slot; one more is refused at once with a busy ToolUnavailableError. */
  maxQueued: number;
}

/** Agents are heavy processes (hundreds of MB each); a runtime such as Ollama queues requests itself. */
export const DEFAULT_CONCURRENCY: Readonly<Record<'agent' | 'runtime', ConcurrencyLimit>> = {
  agent: { maxConcurrent: 4, maxQueued: 32 },
  runtime: { maxConcurrent: 8, maxQueued: 128 },
};

/** What a limiter is doing now (for health records and diagnostics). */
export interface LimiterLoad extends ConcurrencyLimit {
  active: number;
  queued: number;
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (error: unknown) => void;
}

/** Bounds of the Retry-After estimate given to refused callers. */
const MIN_RETRY_AFTER_MS = 1_000;
const MAX_RETRY_AFTER_MS = 60_000;

export function validateConcurrencyLimit(value: unknown, what: string): ConcurrencyLimit {
  const v = value as Partial<ConcurrencyLimit> | null;
  const ok = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= 100_000;
  if (typeof v !== 'object' || v === null || !ok(v.maxConcurrent, 1) || !ok(v.maxQueued, 0)) {
    throw new TypeError(`${what} must be { maxConcurrent: integer ≥ 1, maxQueued: integer ≥ 0 } (got ${JSON.stringify(value)})`);
  }
  return { maxConcurrent: v.maxConcurrent!, maxQueued: v.maxQueued! };
}

/**
 * A counting semaphore with a bounded FIFO queue, one per tool. A full queue
 * refuses at once (never an unbounded wait, never an unbounded number of
 * processes); a waiter whose signal aborts (deadline, client gone) leaves the
 * queue with the signal's reason.
 */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Waiter[] = [];
  /** Moving average of how long a slot is held, for the Retry-After estimate. */
  private averageHoldMs: number | undefined;

  constructor(
    readonly limit: ConcurrencyLimit,
    private readonly label: { toolId: string; name: string },
  ) {}

  load(): LimiterLoad {
    return { ...this.limit, active: this.active, queued: this.queue.length };
  }

  /**
   * Wait for a slot. Resolves to the function that gives it back (call it
   * exactly once, when the work and its process are gone).
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit.maxConcurrent && this.queue.length === 0) return Promise.resolve(this.take());
    if (this.queue.length >= this.limit.maxQueued) return Promise.reject(this.busyError());
    const queuedAt = performance.now();
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(this.whileQueued(signal.reason, performance.now() - queuedAt));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private take(): () => void {
    this.active++;
    const started = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = performance.now() - started;
      this.averageHoldMs = this.averageHoldMs === undefined ? held : this.averageHoldMs * 0.8 + held * 0.2;
      this.active--;
      const next = this.queue.shift();
      if (next) next.grant(this.take());
    };
  }

  /** Roughly when a slot frees up for a newcomer: the queue ahead of it, drained `maxConcurrent` at a time. */
  retryAfterMs(): number {
    const hold = this.averageHoldMs ?? MIN_RETRY_AFTER_MS;
    const rounds = Math.ceil((this.queue.length + 1) / this.limit.maxConcurrent);
    return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, Math.ceil((hold * rounds) / 1000) * 1000));
  }

  private busyError(): ToolUnavailableError {
    const { maxConcurrent, maxQueued } = this.limit;
    const retryAfterMs = this.retryAfterMs();
    return new ToolUnavailableError(
      `${this.label.name} is busy: ${this.active} chats running and ${this.queue.length} waiting (limits ${maxConcurrent} and ${maxQueued}); retry in ${Math.round(retryAfterMs / 1000)} s`,
      {
        toolId: this.label.toolId,
        retryable: true,
        retryAfterMs,
        details: { busy: true, active: this.active, queued: this.queue.length, maxConcurrent, maxQueued },
      },
    );
  }

  /** A deadline that passes in the queue says so, so nobody hunts for a slow tool that never ran. */
  private whileQueued(reason: unknown, waitedMs: number): unknown {
    if (!TimeoutError.isInstance(reason)) return reason;
    const t = reason as TimeoutError;
    return new TimeoutError(
      `${t.message.replace(/\.$/, '')} while waiting for a free slot (${this.limit.maxConcurrent} chats of ${this.label.name} were running; waited ${Math.round(waitedMs)} ms)`,
      { toolId: t.toolId, timeoutMs: t.timeoutMs, details: { queued: true } },
    );
  }
}

/** True for the refusal of a full queue. */
export function isBusyError(error: unknown): boolean {
  return ToolUnavailableError.isInstance(error) && (error as ToolbridgeError).details?.busy === true;
}
