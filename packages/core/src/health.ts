import type { CallContext, DetectResult, ToolAdapter } from './adapter.js';
import { toToolbridgeError } from './errors.js';
import { withoutPassedWindows } from './usage-limits.js';
import type { AuthState, AuthStatus, HealthRecord, UsageLimits } from './types.js';

/** What a health check learned, beyond the record: kept by the registry for preflight decisions. */
export interface HealthObservation {
  record: HealthRecord;
  auth?: AuthState;
  usageLimits?: UsageLimits;
}

/**
 * Check one tool: detect, then auth and usage limits in parallel. Failures of
 * the auth or limits probes never throw; they show up in the record.
 */
export async function checkToolHealth(
  adapter: ToolAdapter,
  ctx: CallContext,
  /** Where detection comes from (the registry passes its discovery cache); default a fresh `detect()`. */
  detect: () => Promise<DetectResult> = () => adapter.detect(ctx),
): Promise<HealthObservation> {
  const started = performance.now();
  const authSupported = typeof adapter.checkAuth === 'function';
  const base = { toolId: adapter.id, authSupported };
  const finish = (fields: Omit<HealthRecord, 'toolId' | 'authSupported' | 'latencyMs' | 'checkedAt'>): HealthRecord => ({
    ...base,
    ...fields,
    latencyMs: Math.round(performance.now() - started),
    checkedAt: new Date().toISOString(),
  });

  const unavailable = (reason: string, version?: string): HealthObservation => ({
    record: finish({
      status: 'unavailable',
      available: false,
      authenticated: false,
      authStatus: authSupported ? 'unknown' : 'not_required',
      reason,
      ...(version ? { version } : {}),
    }),
  });

  let detected;
  try {
    detected = await detect();
  } catch (e) {
    const err = toToolbridgeError(ctx.signal.aborted ? ctx.signal.reason : e);
    return unavailable(err.code === 'internal_error' ? `${adapter.name} could not be checked` : err.message);
  }
  if (!detected.available) return unavailable(detected.reason ?? `${adapter.name} is not available`, detected.version);

  const [authResult, limitsResult] = await Promise.allSettled([
    authSupported ? adapter.checkAuth!(ctx) : Promise.resolve(undefined),
    adapter.usageLimits ? adapter.usageLimits(ctx) : Promise.resolve(undefined),
  ]);

  let authenticated = true;
  let authStatus: AuthStatus = 'not_required';
  let auth: AuthState | undefined;
  let reason: string | undefined;
  if (authSupported) {
    if (authResult.status === 'fulfilled' && authResult.value) {
      auth = authResult.value;
      authenticated = auth.authenticated;
      authStatus = authenticated ? 'authenticated' : 'unauthenticated';
      if (!authenticated) reason = auth.detail ?? `${adapter.name} is not logged in`;
    } else {
      authenticated = false;
      authStatus = 'unknown';
      const err = authResult.status === 'rejected' ? toToolbridgeError(authResult.reason) : undefined;
      reason = `could not determine login state${err && err.code !== 'internal_error' ? `: ${err.message}` : ''}`;
    }
  }
  let usageLimits: UsageLimits | undefined;
  if (limitsResult.status === 'fulfilled') usageLimits = limitsResult.value && withoutPassedWindows(limitsResult.value);
  else if (adapter.usageLimits) {
    const err = toToolbridgeError(limitsResult.reason);
    usageLimits = {
      status: 'unavailable',
      reason: err.code === 'internal_error' ? 'usage limits could not be read' : err.message,
    };
  }

  return {
    auth,
    usageLimits,
    record: finish({
      status: 'healthy',
      available: true,
      authenticated,
      authStatus,
      ...(auth?.method ? { authMethod: auth.method } : {}),
      ...(usageLimits ? { usageLimits } : {}),
      ...(reason ? { reason } : {}),
      ...(detected.version ? { version: detected.version } : {}),
    }),
  };
}
