import { AbortedError, toToolbridgeError, ToolbridgeError } from './errors.js';

/**
 * The one rule for a call that ends while its signal is aborted: the deadline or the caller
 * decides what the failure is, whatever the work threw on its way out. Used by the runner, the
 * kit, the registry and the fallback engine.
 */
export function failureOf(error: unknown, signal: AbortSignal | undefined, toolId?: string): ToolbridgeError {
  if (signal?.aborted) return abortReasonOf(signal, toolId);
  return toToolbridgeError(error);
}

/** The error an aborted signal stands for: its reason when that is ours, else an AbortedError. */
export function abortReasonOf(signal: AbortSignal, toolId?: string, what?: string): ToolbridgeError {
  const reason: unknown = signal.reason;
  if (ToolbridgeError.isInstance(reason)) return reason;
  return new AbortedError(what ? `${what} was cancelled` : undefined, { toolId, cause: reason });
}

/** Reject with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Nobody else may be waiting for `promise`: its own rejection must not go unhandled.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Resolve after `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wait for `work` to settle, but at most `ms`: cancelled work gets time to clean up, never forever. */
export function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void work.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });
}
