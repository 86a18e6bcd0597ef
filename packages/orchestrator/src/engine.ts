import pRetry, { AbortError } from 'p-retry';
import pTimeout from 'p-timeout';
import {
  AbortedError,
  attemptReasonOf,
  FallbackExhaustedError,
  InvalidRequestError,
  RateLimitError,
  TimeoutError,
  toToolbridgeError,
  type Attempt,
  type ChatResult,
  type FallbackChatResponse,
  type ToolbridgeError,
} from '@toolbridge/core';
import {
  isBusyError,
  sleep,
  toChatResponse,
  failureOf,
  type CallOptions,
  type ValidChatRequest,
  type ToolRegistry,
} from '@toolbridge/core/runtime';
import { retryDelay, type BackoffSettings } from './backoff.js';
import type { NormalizedFallbackOptions } from './options.js';
import { preflight, type PreflightSettings } from './preflight.js';
import { routeOrder } from './route.js';

export type EngineSettings = BackoffSettings & PreflightSettings;

/** Runs one attempt on one tool: a plain chat, or a stream that forwards its events. */
export interface AttemptRunner {
  run(toolId: string, request: ValidChatRequest, options: CallOptions): Promise<ChatResult>;
  /** True once output reached the caller: from then on a failure is final (no retry, no fallback). */
  readonly committed: boolean;
}

/**
 * A per-attempt timer and the overall deadline are set for (almost) the same
 * instant when the deadline bounds the attempt; a failure this close to the
 * deadline is the deadline's.
 */
const DEADLINE_SLACK_MS = 5;

const elapsed = (since: number) => Math.round(performance.now() - since);

/**
 * The fallback loop shared by chat and stream: preflight each tool, run it
 * with retries (p-retry), move on or stop by error class, and bound it all by
 * the overall deadline (p-timeout). Caller abort and deadline both abort the
 * one signal every attempt runs under, which kills the running attempt.
 */
export async function runFallback(
  registry: ToolRegistry,
  settings: EngineSettings,
  request: ValidChatRequest,
  options: NormalizedFallbackOptions,
  runner: AttemptRunner,
  onRecord?: (attempt: Attempt) => void,
): Promise<FallbackChatResponse> {
  const started = performance.now();
  const { timeoutMs } = options;
  // Routing reads what the registry knows now: a chat that waited for a reset is routed again.
  const route = routeOrder(registry, options.providers, options.route, options.keepFirst);
  const providers = route.order;
  const deadlineAt = timeoutMs === undefined ? Infinity : started + timeoutMs;
  const remaining = () => deadlineAt - performance.now();

  const controller = new AbortController();
  const signal = controller.signal;
  let currentTool: string | undefined;
  const deadlineError = () => new TimeoutError(`The fallback chat timed out after ${timeoutMs} ms`, { toolId: currentTool, timeoutMs });
  const expire = () => {
    if (!signal.aborted) controller.abort(deadlineError());
  };
  const cancelled = () => new AbortedError('The fallback chat was cancelled', { toolId: currentTool, cause: options.signal?.reason });
  if (options.signal?.aborted) throw cancelled();
  const onCallerAbort = () => controller.abort(cancelled());
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const attempts: Attempt[] = [];
  const record = (attempt: Attempt) => {
    attempts.push(attempt);
    onRecord?.(attempt);
    try {
      options.onAttempt?.(attempt);
    } catch {
      // An observer's bug must not change the outcome of the chat.
    }
  };
  let lastError: ToolbridgeError | undefined;
  /** Quota and rate-limit skips: when all providers were skipped so, the error names the earliest reset. */
  const quotaSkips: RateLimitError[] = [];

  const tryTool = async (toolId: string): Promise<ChatResult | undefined> => {
    const name = registry.adapter(toolId).name;
    let tryIndex = 0;
    let fatal: ToolbridgeError | undefined;
    const attempt = async (): Promise<ChatResult> => {
      if (remaining() <= 0) expire();
      if (signal.aborted) throw new AbortError(signal.reason as Error);
      const index = tryIndex++;
      const t0 = performance.now();
      const bound = Math.min(options.perAttemptTimeoutMs ?? Infinity, remaining());
      try {
        const result = await runner.run(toolId, request, {
          timeoutMs: Number.isFinite(bound) ? Math.max(1, Math.ceil(bound)) : undefined,
          signal,
          maxPermissions: options.maxPermissions,
        });
        record({ toolId, tryIndex: index, stage: 'execution', outcome: 'succeeded', message: `${name} answered`, latencyMs: elapsed(t0) });
        return result;
      } catch (e) {
        if (!signal.aborted && remaining() <= DEADLINE_SLACK_MS) expire();
        // When the caller or the deadline ended the attempt, that is the failure, whatever the tool threw on its way out.
        const error = failureOf(e, signal, toolId);
        record({
          toolId,
          tryIndex: index,
          stage: 'execution',
          outcome: 'failed',
          reason: attemptReasonOf(error),
          message: error.message,
          latencyMs: elapsed(t0),
        });
        lastError = error;
        // A request no tool can take is final; one only this tool cannot take (images) moves on.
        const invalid: boolean = InvalidRequestError.isInstance(error) && error.publicDetails?.reason !== 'unsupported';
        if (signal.aborted || invalid || runner.committed) {
          fatal = error;
          throw new AbortError(error);
        }
        // Auth, unavailable and other permanent failures: the next tool, at once. So too a
        // busy tool (its queue is full): another tool can answer now, it cannot.
        if (!error.retryable || isBusyError(error)) throw new AbortError(error);
        throw error;
      }
    };
    try {
      return await pRetry(attempt, {
        retries: options.retries,
        // The delay is decided per failure in onFailedAttempt (it may follow a rate limit's reset).
        minTimeout: 0,
        signal,
        async onFailedAttempt({ error, retriesLeft, retriesConsumed }) {
          if (signal.aborted) throw signal.reason;
          if (retriesLeft <= 0) return;
          const delay = retryDelay(toToolbridgeError(error), retriesConsumed, remaining(), settings);
          // Throwing here ends this tool's retries: the wait would not fit, so use the time on the next tool.
          if (delay === undefined) throw error;
          if (delay > 0) await sleep(delay, signal);
        },
      });
    } catch (e) {
      if (fatal && (runner.committed || !signal.aborted)) throw fatal;
      return undefined;
    }
  };

  const loop = async (): Promise<FallbackChatResponse> => {
    for (const toolId of providers) {
      currentTool = toolId;
      if (remaining() <= 0) expire();
      if (signal.aborted) break;
      const t0 = performance.now();
      let skip;
      try {
        skip = await preflight(registry, toolId, request, signal, remaining, settings);
      } catch (e) {
        if (signal.aborted) break;
        throw e;
      }
      if (skip) {
        record({
          toolId,
          tryIndex: 0,
          stage: 'preflight',
          outcome: 'skipped',
          reason: skip.reason,
          message: skip.error.message,
          latencyMs: elapsed(t0),
        });
        lastError = skip.error;
        if (RateLimitError.isInstance(skip.error)) quotaSkips.push(skip.error as RateLimitError);
        continue;
      }
      const result = await tryTool(toolId);
      if (result) {
        const response = toChatResponse(registry.adapter(toolId), result, performance.now() - started, request.model);
        return { ...response, fallbackUsed: toolId !== providers[0], attempts, route };
      }
    }
    if (signal.aborted) {
      const reason = toToolbridgeError(signal.reason);
      if (!TimeoutError.isInstance(reason)) throw reason;
      throw new FallbackExhaustedError(`No tool answered within ${timeoutMs} ms${summarize(attempts)}`, attempts, reason);
    }
    if (quotaSkips.length === attempts.length) lastError = earliestReset(quotaSkips) ?? lastError;
    throw new FallbackExhaustedError(`No tool could answer${summarize(attempts)}`, attempts, lastError);
  };

  const running = loop();
  try {
    if (timeoutMs === undefined) return await running;
    // On the deadline, abort the running attempt and let the loop settle, so the error carries the killed attempt too.
    return await pTimeout(running, {
      milliseconds: timeoutMs,
      fallback: () => {
        expire();
        return running;
      },
    });
  } finally {
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** The skip that lifts first (its `resetsAt` and Retry-After are the 429's). */
function earliestReset(skips: readonly RateLimitError[]): RateLimitError | undefined {
  let best: RateLimitError | undefined;
  for (const s of skips) if (s.resetsAt && (!best?.resetsAt || s.resetsAt < best.resetsAt)) best = s;
  return best;
}

/** `: codex failed 2× (timeout); claude-code skipped (unauthenticated)` — reasons only, never tool output. */
function summarize(attempts: readonly Attempt[]): string {
  const byTool = new Map<string, { outcome: string; reason?: string; count: number }>();
  for (const a of attempts) {
    const entry = byTool.get(a.toolId) ?? { outcome: a.outcome, count: 0 };
    entry.outcome = a.outcome;
    entry.reason = a.reason;
    entry.count++;
    byTool.set(a.toolId, entry);
  }
  if (byTool.size === 0) return '';
  const parts = [...byTool].map(([id, e]) => `${id} ${e.outcome}${e.count > 1 ? ` ${e.count}×` : ''}${e.reason ? ` (${e.reason})` : ''}`);
  return `: ${parts.join('; ')}`;
}
