import {
  QuotaExceededError,
  raceAbort,
  RateLimitError,
  ToolAuthError,
  ToolNotFoundError,
  ToolUnavailableError,
  type AttemptReason,
  type ToolbridgeError,
  type ToolRegistry,
  type ToolState,
} from '@toolbridge/core';

/** Why a tool is skipped without starting anything. */
export interface Skip {
  reason: AttemptReason;
  error: ToolbridgeError;
}

export interface PreflightSettings {
  authTrustMs: number;
  authRecheckTimeoutMs: number;
}

/**
 * Decide from what the registry already knows whether a tool can answer:
 * unknown, not installed/unreachable (discovery cache), logged out, usage
 * window used up, or cooling down after a rate limit. Undefined = try it.
 *
 * Only an old "logged out" observation costs anything: the login is
 * re-checked (a health check of that one tool, bounded) so a user who has
 * logged in since is not locked out until the process restarts.
 */
export async function preflight(
  registry: ToolRegistry,
  toolId: string,
  signal: AbortSignal,
  remainingMs: () => number,
  settings: PreflightSettings,
): Promise<Skip | undefined> {
  if (!registry.has(toolId)) {
    return { reason: 'not_found', error: new ToolNotFoundError(toolId, { known: [...registry.toolIds] }) };
  }
  const adapter = registry.adapter(toolId);
  let available: boolean;
  let why: string | undefined;
  try {
    // A record past its TTL still decides; the fresh probe runs beside the chat, not before it.
    const tool = await raceAbort(registry.tool(toolId, { allowStale: true }), signal);
    available = tool.available;
    why = tool.reason;
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    available = false;
    why = `${adapter.name} could not be detected`;
  }
  if (!available) {
    return { reason: 'unavailable', error: new ToolUnavailableError(why ?? `${adapter.name} is not available`, { toolId }) };
  }

  let state = registry.state(toolId);
  if (state.auth?.authenticated === false && Date.now() - state.auth.observedAt > settings.authTrustMs && adapter.checkAuth) {
    const bound = Math.max(1, Math.floor(Math.min(settings.authRecheckTimeoutMs, remainingMs())));
    // A health check never throws; it refreshes the registry's auth (and usage) knowledge when it can tell.
    await registry.health(toolId, { timeoutMs: bound, signal, refresh: true }).catch(() => undefined);
    if (signal.aborted) throw signal.reason;
    state = registry.state(toolId);
  }
  const auth = state.auth;
  if (auth?.authenticated === false && Date.now() - auth.observedAt <= settings.authTrustMs) {
    const seconds = Math.round((Date.now() - auth.observedAt) / 1000);
    return {
      reason: 'unauthenticated',
      error: new ToolAuthError(`${adapter.name} is not logged in (checked ${seconds} s ago)`, { toolId }),
    };
  }
  return quotaSkip(adapter.name, toolId, state);
}

/** A used-up usage window or an active cool-down. */
function quotaSkip(name: string, toolId: string, state: ToolState): Skip | undefined {
  const now = Date.now();
  if (state.usageLimits?.status === 'available') {
    for (const [window, w] of Object.entries(state.usageLimits.windows ?? {})) {
      const resetsAt = w.resetsAt ? Date.parse(w.resetsAt) : NaN;
      if (w.usedPercentage >= 100 && resetsAt > now) {
        return {
          reason: 'quota_exceeded',
          error: new QuotaExceededError(`${name} has used 100% of its ${window} usage window until ${w.resetsAt}`, {
            toolId,
            resetsAt: new Date(resetsAt),
          }),
        };
      }
    }
  }
  if (state.coolDownUntil !== undefined && state.coolDownUntil > now) {
    const reason = state.coolDownReason ?? 'rate_limited';
    const resetsAt = new Date(state.coolDownUntil);
    const message = `${name} is cooling down after a ${reason === 'quota_exceeded' ? 'usage limit' : 'rate limit'} until ${resetsAt.toISOString()}`;
    return {
      reason,
      error:
        reason === 'quota_exceeded'
          ? new QuotaExceededError(message, { toolId, resetsAt })
          : new RateLimitError(message, { toolId, resetsAt }),
    };
  }
  return undefined;
}
