import {
  InvalidRequestError,
  LIMITS,
  PERMISSION_LEVELS,
  ROUTE_POLICIES,
  type Attempt,
  type PermissionLevel,
  type RoutePolicy,
} from '@toolbridge/core';
import { type ApprovalHandler } from '@toolbridge/core/runtime';

/** Options of a fallback chat across an ordered list of tools. */
export interface FallbackOptions {
  /** Tool ids in the order to try; duplicates are collapsed (first occurrence wins). */
  providers: readonly string[];
  /** Retries per tool for retryable failures: an integer from 0 to `MAX_RETRIES` (default 0). */
  retries?: number;
  /** Time allowed for one attempt, in ms (positive integer); bounded by what is left of `timeoutMs`. */
  perAttemptTimeoutMs?: number;
  /** Time allowed for the whole fallback chat, in ms (positive integer). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The most any tool may be allowed in this chat (core's `CallOptions.maxPermissions`). */
  maxPermissions?: PermissionLevel;
  /** Called as each attempt is recorded. */
  onAttempt?: (attempt: Attempt) => void;
  /** With the request's `approvals: "ask"`: decides each approval of every attempt (core's `ChatCallOptions.onApproval`). */
  onApproval?: ApprovalHandler;
  /**
   * `in-order` (default): the providers as given. `headroom`: the tool with the most left of its
   * tightest known usage window first (a tool with no known windows counts as 50 %); ties keep
   * the given order. Used-up and cooling-down tools are skipped either way.
   */
  route?: RoutePolicy;
  /**
   * When every provider is skipped for a used-up window or a rate limit and the earliest known
   * reset is within this many ms (at most `LIMITS.maxQuotaWaitMs`, 1 h), wait for it and run then
   * (listed by `waiting()` meanwhile; `signal` ends the wait at once). Default 0: fail at once.
   */
  waitForQuota?: number;
}

/** Behaviour of an orchestrator; every field has a default. */
export interface OrchestratorOptions {
  /** Delay before the first retry of a tool (default 250 ms); doubled for each further retry. */
  backoffBaseMs?: number;
  /** Longest delay between two tries of one tool (default 4000 ms). */
  backoffMaxMs?: number;
  /**
   * Longest wait honoured for a rate limit's reset time or Retry-After (default 30 s).
   * A longer (or past-the-deadline) wait moves on to the next tool instead.
   */
  maxRateLimitWaitMs?: number;
  /**
   * How long a "logged out" observation is trusted (default 60 s). Within it the tool is
   * skipped without starting anything; after it the login is re-checked before deciding,
   * so a user who has logged in since is not locked out.
   */
  authTrustMs?: number;
  /** Bound on that re-check (default 5 s); when it cannot tell, the tool is tried. */
  authRecheckTimeoutMs?: number;
}

/** Most retries allowed per tool (core's `LIMITS.maxRetries`, shared with the bridge's schemas). */
export const MAX_RETRIES = LIMITS.maxRetries;
/** Longest deadline (core's `LIMITS.maxTimeoutMs`). */
export const MAX_TIMEOUT_MS = LIMITS.maxTimeoutMs;

/** The options as checked: providers without duplicates, and every default filled in. */
export interface NormalizedFallbackOptions
  extends
    Omit<FallbackOptions, 'providers' | 'retries' | 'route' | 'waitForQuota'>,
    Required<Pick<FallbackOptions, 'retries' | 'route' | 'waitForQuota'>> {
  providers: string[];
  /** The first provider is a session's own tool: routing keeps it first. */
  keepFirst?: boolean;
}

function positiveInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new InvalidRequestError(`${name} must be a positive integer number of milliseconds (at most ${MAX_TIMEOUT_MS})`);
  }
  return value;
}

/** Validate the options of a fallback chat; throws InvalidRequestError naming the field. */
export function normalizeFallbackOptions(options: unknown): NormalizedFallbackOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidRequestError('fallback chat options must be an object with "providers"');
  }
  const o = options as Record<string, unknown>;
  const providers = o.providers;
  if (!Array.isArray(providers) || providers.length === 0) {
    throw new InvalidRequestError('providers must be a non-empty array of tool ids');
  }
  if (providers.length > LIMITS.maxProviders) throw new InvalidRequestError(`providers may name at most ${LIMITS.maxProviders} tools`);
  for (const p of providers) {
    if (typeof p !== 'string' || p.length === 0) throw new InvalidRequestError('providers must contain only non-empty tool id strings');
  }
  const retries = o.retries ?? 0;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new InvalidRequestError(`retries must be an integer from 0 to ${MAX_RETRIES}`);
  }
  const signal = o.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidRequestError('signal must be an AbortSignal');
  const maxPermissions = o.maxPermissions;
  if (maxPermissions !== undefined && !PERMISSION_LEVELS.includes(maxPermissions as PermissionLevel)) {
    throw new InvalidRequestError(`maxPermissions must be one of ${PERMISSION_LEVELS.join(', ')}`);
  }
  const route = o.route ?? 'in-order';
  if (!ROUTE_POLICIES.includes(route as RoutePolicy)) throw new InvalidRequestError(`route must be one of ${ROUTE_POLICIES.join(', ')}`);
  const waitForQuota = o.waitForQuota ?? 0;
  if (typeof waitForQuota !== 'number' || !Number.isInteger(waitForQuota) || waitForQuota < 0 || waitForQuota > LIMITS.maxQuotaWaitMs) {
    throw new InvalidRequestError(`waitForQuota must be an integer number of milliseconds from 0 to ${LIMITS.maxQuotaWaitMs}`);
  }
  const onAttempt = o.onAttempt;
  if (onAttempt !== undefined && typeof onAttempt !== 'function') throw new InvalidRequestError('onAttempt must be a function');
  const onApproval = o.onApproval;
  if (onApproval !== undefined && typeof onApproval !== 'function') throw new InvalidRequestError('onApproval must be a function');
  return {
    providers: [...new Set(providers as string[])],
    retries,
    perAttemptTimeoutMs: positiveInteger(o.perAttemptTimeoutMs, 'perAttemptTimeoutMs'),
    timeoutMs: positiveInteger(o.timeoutMs, 'timeoutMs'),
    signal: signal as AbortSignal | undefined,
    ...(maxPermissions ? { maxPermissions: maxPermissions as PermissionLevel } : {}),
    onAttempt: onAttempt as ((attempt: Attempt) => void) | undefined,
    ...(onApproval ? { onApproval: onApproval as ApprovalHandler } : {}),
    route: route as RoutePolicy,
    waitForQuota,
  };
}
