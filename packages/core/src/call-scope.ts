import type { CallContext } from './adapter.js';
import { failureOf, raceAbort, settleWithin } from './abort.js';
import type { ConfigStore } from './config.js';
import { createCallContext, type CallOptions } from './context.js';
import { ToolUnavailableError, type ToolbridgeError } from './errors.js';

/**
 * Every call in flight, so `close()` can cancel them all and wait (bounded) until their
 * processes and files are gone. A cancelled call returns only once its adapter has cleaned up.
 */
export class CallScope {
  private readonly inflight = new Set<AbortController>();
  private readonly pending = new Set<Promise<void>>();
  closed = false;

  constructor(
    private readonly config: ConfigStore,
    private readonly env: NodeJS.ProcessEnv,
    readonly settleTimeoutMs: number,
  ) {}

  /** A context tracked for close(); its signal aborts on timeout, caller abort or close. */
  track(toolId: string | undefined, options: CallOptions = {}, what?: string): { ctx: CallContext; done(): void } {
    if (this.closed) throw new ToolUnavailableError('Toolbridge is shutting down', { toolId });
    const closer = new AbortController();
    this.inflight.add(closer);
    const signal = options.signal ? AbortSignal.any([options.signal, closer.signal]) : closer.signal;
    const managed = createCallContext(
      { config: this.config.effective(), env: this.env, toolId, what },
      { timeoutMs: options.timeoutMs, signal, maxPermissions: options.maxPermissions },
    );
    return {
      ctx: managed.ctx,
      done: () => {
        managed.done();
        this.inflight.delete(closer);
      },
    };
  }

  /** Track an adapter's own promise (not the caller's race against the signal) until it settles. */
  watch<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return work;
  }

  /** Wait, at most `settleTimeoutMs`, for cancelled work to wind down. */
  settle(work: Promise<unknown>): Promise<void> {
    return settleWithin(work, this.settleTimeoutMs);
  }

  /** Run adapter work under a tracked context; a cancelled call returns only once the adapter has cleaned up. */
  async run<T>(toolId: string, options: CallOptions | undefined, what: string, fn: (ctx: CallContext) => Promise<T>): Promise<T> {
    const { ctx, done } = this.track(toolId, options, what);
    const work = this.watch(fn(ctx));
    try {
      return await raceAbort(work, ctx.signal);
    } catch (e) {
      if (ctx.signal.aborted) await this.settle(work);
      throw failureOf(e, ctx.signal, toolId);
    } finally {
      done();
    }
  }

  /** Cancel every call in flight (their processes are killed) and wait for them to wind down. */
  async close(reason: ToolbridgeError = new ToolUnavailableError('Toolbridge is shutting down')): Promise<void> {
    this.closed = true;
    for (const c of this.inflight) c.abort(reason);
    this.inflight.clear();
    await this.settle(Promise.allSettled([...this.pending]));
  }
}
