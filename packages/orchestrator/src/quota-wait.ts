import { randomUUID } from 'node:crypto';
import {
  AbortedError,
  FallbackExhaustedError,
  RateLimitError,
  type Attempt,
  type FallbackChatResponse,
  type QueueEntry,
} from '@toolbridge/core';
import { sleep } from '@toolbridge/core/runtime';

/** Past the reset, a little more: the provider's clock and ours differ by a second or so. */
export const RESET_MARGIN_MS = 1000;

const QUOTA_REASONS: ReadonlySet<string> = new Set(['rate_limited', 'quota_exceeded']);

/**
 * When a failed fallback chat may wait for a reset: every provider was skipped before starting for
 * a used-up window or a cool-down, and the error names when the earliest one lifts. The time to
 * wake (epoch ms), or undefined.
 */
export function quotaResetOf(error: unknown): number | undefined {
  if (!FallbackExhaustedError.isInstance(error)) return undefined;
  const e = error as FallbackExhaustedError;
  const allQuota = e.attempts.length > 0 && e.attempts.every((a) => a.stage === 'preflight' && QUOTA_REASONS.has(a.reason ?? ''));
  if (!allQuota || !RateLimitError.isInstance(e.lastError)) return undefined;
  return (e.lastError as RateLimitError).resetsAt?.getTime();
}

/** Fallback chats waiting for a usage window to reset (`GET /queue`). */
export class QuotaQueue {
  private readonly entries = new Map<string, QueueEntry>();

  list(): QueueEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Run `attempt`; while it fails only because every provider is out of quota and the earliest
   * reset is within `waitMs` of the start, wait for that reset (listed in the queue; the caller's
   * signal ends the wait at once) and run it again.
   */
  async run(
    providers: readonly string[],
    waitMs: number,
    signal: AbortSignal | undefined,
    attempt: () => Promise<FallbackChatResponse>,
  ): Promise<FallbackChatResponse> {
    const waitUntil = Date.now() + waitMs;
    const earlier: Attempt[] = [];
    for (;;) {
      try {
        const response = await attempt();
        return earlier.length > 0 ? { ...response, attempts: [...earlier, ...response.attempts] } : response;
      } catch (e) {
        const reset = waitMs > 0 ? quotaResetOf(e) : undefined;
        if (reset === undefined || reset > waitUntil) throw e;
        earlier.push(...(e as FallbackExhaustedError).attempts);
        await this.wait(providers, Math.max(reset, Date.now()) + RESET_MARGIN_MS, signal);
      }
    }
  }

  private async wait(providers: readonly string[], until: number, signal: AbortSignal | undefined): Promise<void> {
    const id = `q_${randomUUID()}`;
    this.entries.set(id, { id, providers: [...providers], until: new Date(until).toISOString() });
    try {
      await sleep(Math.max(0, until - Date.now()), signal ?? new AbortController().signal);
    } catch (e) {
      throw new AbortedError('The chat was cancelled while it waited for a usage window to reset', { cause: e });
    } finally {
      this.entries.delete(id);
    }
  }
}
