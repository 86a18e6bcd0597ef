import type { CallContext } from './adapter.js';
import type { ToolbridgeConfig } from './config.js';
import type { PermissionLevel } from './wire/chat.js';
import { TimeoutError } from './errors.js';

export interface CallOptions {
  /** Milliseconds before the call is cancelled with a TimeoutError. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The most an agent may be allowed in this call, whatever the request or the config asks: a
   * higher level is narrowed to it (and the answer's `metadata.permissions` says so). The bridge
   * sets `workspace-write` when it runs without a token, so that no local process can get `full`,
   * not even by `PUT /config`.
   */
  maxPermissions?: PermissionLevel;
}

export interface ManagedContext {
  ctx: CallContext;
  /** Release timers and listeners; call when the operation has settled. */
  done(): void;
}

/**
 * A call context whose signal aborts when the caller's signal does, or with a
 * TimeoutError (as `signal.reason`) when `timeoutMs` passes.
 */
export function createCallContext(
  base: { config: Readonly<ToolbridgeConfig>; env?: NodeJS.ProcessEnv; toolId?: string; what?: string },
  options: CallOptions = {},
): ManagedContext {
  const { maxPermissions } = options;
  const controller = new AbortController();
  const { timeoutMs, signal } = options;
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  if (timeoutMs !== undefined && timeoutMs > 0 && !controller.signal.aborted) {
    timer = setTimeout(() => {
      const what = base.what ?? (base.toolId ? `${base.toolId}` : 'The operation');
      controller.abort(new TimeoutError(`${what} timed out after ${timeoutMs} ms`, { toolId: base.toolId, timeoutMs }));
    }, timeoutMs);
  }
  return {
    ctx: {
      config: base.config,
      env: base.env ?? process.env,
      signal: controller.signal,
      timeoutMs,
      toolId: base.toolId,
      ...(maxPermissions ? { maxPermissions } : {}),
    },
    done() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
