import {
  QuotaExceededError,
  RateLimitError,
  ToolAuthError,
  ToolUnavailableError,
  type Tool,
  type AttemptReason,
  type ToolbridgeError,
} from '@toolbridge/core';
import {
  approvalsRefusal,
  imagesRefusal,
  mcpServersRefusal,
  raceAbort,
  type ValidChatRequest,
  type ToolRegistry,
  type ToolState,
} from '@toolbridge/core/runtime';

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
  request: ValidChatRequest,
  signal: AbortSignal,
  remainingMs: () => number,
  settings: PreflightSettings,
): Promise<Skip | undefined> {
  const adapter = registry.adapter(toolId);
  let tool: Tool | undefined;
  try {
    // A record past its TTL still decides; the fresh probe runs beside the chat, not before it.
    tool = await raceAbort(registry.tool(toolId, { allowStale: true }), signal);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
  }
  if (!tool?.available) {
    const why = tool ? tool.reason : `${adapter.name} could not be detected`;
    return { reason: 'unavailable', error: new ToolUnavailableError(why ?? `${adapter.name} is not available`, { toolId }) };
  }
  const cannotAsk = approvalsRefusal(adapter, request);
  if (cannotAsk) return { reason: 'unsupported', error: cannotAsk };
  const noImages = imagesRefusal(adapter, request, tool);
  if (noImages) return { reason: 'unsupported', error: noImages };

  const noMcp = mcpServersRefusal(adapter, request);
  if (noMcp) return { reason: 'unsupported', error: noMcp };

  let state = registry.state(toolId);
  if (loggedOut(state, settings) === 'stale' && adapter.checkAuth) {
    const bound = Math.max(1, Math.floor(Math.min(settings.authRecheckTimeoutMs, remainingMs())));
    // A health check never throws; it refreshes the registry's auth (and usage) knowledge when it can tell.
    await registry.health(toolId, { timeoutMs: bound, signal, refresh: true }).catch(() => undefined);
    if (signal.aborted) throw signal.reason;
    state = registry.state(toolId);
  }
  const auth = state.auth;
  if (auth && loggedOut(state, settings) === 'fresh') {
    const seconds = Math.round((Date.now() - auth.observedAt) / 1000);
    return {
      reason: 'unauthenticated',
      error: new ToolAuthError(`${adapter.name} is not logged in (checked ${seconds} s ago)`, { toolId }),
    };
  }
  return quotaSkip(adapter.name, toolId, state);
}

/**
 * Whether a "logged out" observation stands: `fresh` within `authTrustMs`, `stale` after it (worth
 * a re-check), undefined when there is none, or when a check said so but a chat has succeeded
 * within the trust window (a chat is proof; a check can be wrong, e.g. Codex with a custom provider key).
 */
function loggedOut(state: ToolState, settings: PreflightSettings): 'fresh' | 'stale' | undefined {
  const auth = state.auth;
  if (!auth || auth.authenticated) return undefined;
  const now = Date.now();
  if (auth.source === 'check' && state.lastSuccessAt !== undefined && now - state.lastSuccessAt <= settings.authTrustMs) return undefined;
  return now - auth.observedAt <= settings.authTrustMs ? 'fresh' : 'stale';
}

/** A used-up usage window (one the plan lets run on into billed overage does not stop the tool) or an active cool-down. */
function quotaSkip(name: string, toolId: string, state: ToolState): Skip | undefined {
  const now = Date.now();
  if (state.usageLimits?.status === 'available') {
    for (const [window, w] of Object.entries(state.usageLimits.windows ?? {})) {
      const resetsAt = w.resetsAt ? Date.parse(w.resetsAt) : NaN;
      if (w.usedPercentage >= 100 && !w.overagePermitted && resetsAt > now) {
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
