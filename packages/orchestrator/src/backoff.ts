import { RateLimitError, type ToolbridgeError } from '@toolbridge/core';

export interface BackoffSettings {
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxRateLimitWaitMs: number;
}

/**
 * How long to wait before retrying the same tool, or undefined to move on to
 * the next tool instead. A rate limit that says when it resets is honoured
 * when that fits the deadline and the cap; one that resets later is not
 * waited for. Other failures get a short exponential backoff.
 */
export function retryDelay(
  error: ToolbridgeError,
  retriesConsumed: number,
  remainingMs: number,
  settings: BackoffSettings,
): number | undefined {
  let delay: number;
  if (RateLimitError.isInstance(error) && (error as RateLimitError).waitMs() !== undefined) {
    delay = (error as RateLimitError).waitMs()!;
    if (delay > settings.maxRateLimitWaitMs) return undefined;
  } else {
    delay = Math.min(settings.backoffBaseMs * 2 ** retriesConsumed, settings.backoffMaxMs);
  }
  // Waiting until (or past) the deadline would leave no time for the retry itself.
  return delay < remainingMs ? delay : undefined;
}
