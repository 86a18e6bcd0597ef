import { type UsageLimits } from '@toolbridge/core';
import { raceAbort } from '@toolbridge/core/runtime';
import type { AppServer } from './warm-process.js';
import { namedWindows } from './usage-limits.js';

/**
 * Bound on one `account/rateLimits/read`: Codex fetches the windows from the ChatGPT backend while
 * the request waits (measured against a mock on 127.0.0.1: 17–200 ms). Past it, health reads the
 * session logs instead, within its own deadline.
 */
export const RATE_LIMITS_READ_TIMEOUT_MS = 5000;

/**
 * Codex's error when its login is not a ChatGPT one: "chatgpt authentication required to read
 * rate limits" (an API key) or "codex account authentication required …" (no login; a custom
 * provider). Such a login has no windows to read: not a failure.
 */
const NO_CHATGPT_LOGIN = /authentication required to read rate limits/i;

/** One window of the app-server's answer: `usedPercent`, `windowDurationMins`, `resetsAt` (epoch seconds). */
function logForm(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const w = raw as { usedPercent?: unknown; windowDurationMins?: unknown; resetsAt?: unknown };
  return { used_percent: w.usedPercent, window_minutes: w.windowDurationMins ?? undefined, resets_at: w.resetsAt ?? undefined };
}

/**
 * Usage limits from an `account/rateLimits/read` answer: its `rateLimits`, the `codex` bucket
 * (what Codex itself shows; other metered buckets do not gate a chat), named by length like the
 * session log's windows. Undefined when it holds no window.
 */
export function usageLimitsFromRateLimits(result: Record<string, unknown>, observedAt: Date): UsageLimits | undefined {
  const snapshot = result.rateLimits as Record<string, unknown> | null | undefined;
  if (typeof snapshot !== 'object' || snapshot === null) return undefined;
  const windows = namedWindows({ primary: logForm(snapshot.primary), secondary: logForm(snapshot.secondary) });
  if (!windows) return undefined;
  const plan = typeof snapshot.planType === 'string' && snapshot.planType !== 'unknown' ? snapshot.planType : undefined;
  return { status: 'available', source: 'app_server', ...(plan ? { plan } : {}), windows, observedAt: observedAt.toISOString() };
}

/** What a read from a running app-server gave: windows, none to be had (not a ChatGPT login), or a failure. */
export type RateLimitsRead = { limits: UsageLimits } | { none: true } | { failed: true };

/**
 * The windows a running app-server reads from the ChatGPT backend now. Any failure (the backend,
 * the timeout, the server ending) is `failed`: the caller reads the session logs instead, and the
 * message (it holds the backend's URL and answer) stays out of health.
 */
export async function readRateLimits(server: AppServer, signal: AbortSignal): Promise<RateLimitsRead> {
  const observedAt = new Date();
  try {
    // Background reads skip the reset-credit detail lookup (one backend request fewer).
    const result = await raceAbort(
      server.request('account/rateLimits/read', { excludeResetCreditDetails: true }, RATE_LIMITS_READ_TIMEOUT_MS),
      signal,
    );
    const limits = usageLimitsFromRateLimits(result, observedAt);
    return limits ? { limits } : { none: true };
  } catch (e) {
    if (signal.aborted) throw e;
    return e instanceof Error && NO_CHATGPT_LOGIN.test(e.message) ? { none: true } : { failed: true };
  }
}
