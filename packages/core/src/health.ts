import type { CallContext, DetectResult, ToolAdapter } from './adapter.js';
import { failureOf, raceAbort } from './abort.js';
import type { CallScope } from './call-scope.js';
import type { CallOptions } from './context.js';
import { TimeoutError, toToolbridgeError } from './errors.js';
import type { ToolStates } from './tool-state.js';
import { TtlCache } from './ttl-cache.js';
import { withoutPassedWindows } from './usage-limits.js';
import type { AuthState, AuthStatus, HealthRecord, LiveHealthRecord, ToolLoad, UsageLimits } from './types.js';

/** What a health check learned, beyond the record: kept by the registry for preflight decisions. */
export interface HealthObservation {
  record: HealthRecord;
  auth?: AuthState;
  usageLimits?: UsageLimits;
}

/** Options of a health check. */
export interface HealthOptions extends CallOptions {
  /** Check now instead of reusing a record younger than the health TTL. */
  refresh?: boolean;
}

/** The record of a tool that could not be checked. */
export function unavailableRecord(a: ToolAdapter, reason: string, started: number, version?: string): HealthRecord {
  const authSupported = typeof a.checkAuth === 'function';
  return {
    toolId: a.id,
    status: 'unavailable',
    available: false,
    authSupported,
    authenticated: false,
    authStatus: authSupported ? 'unknown' : 'not_required',
    reason,
    ...(version ? { version } : {}),
    latencyMs: Math.round(performance.now() - started),
    checkedAt: new Date().toISOString(),
  };
}

/**
 * Check one tool: detect, then auth and usage limits in parallel. Failures of the auth or limits
 * probes never throw; they show up in the record.
 */
export async function checkToolHealth(
  adapter: ToolAdapter,
  ctx: CallContext,
  detect: () => Promise<DetectResult> = () => adapter.detect(ctx),
): Promise<HealthObservation> {
  const started = performance.now();
  let detected;
  try {
    detected = await detect();
  } catch (e) {
    const err = failureOf(e, ctx.signal, adapter.id);
    return {
      record: unavailableRecord(adapter, err.code === 'internal_error' ? `${adapter.name} could not be checked` : err.message, started),
    };
  }
  if (!detected.available)
    return { record: unavailableRecord(adapter, detected.reason ?? `${adapter.name} is not available`, started, detected.version) };

  const authSupported = typeof adapter.checkAuth === 'function';
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
    usageLimits = { status: 'unavailable', reason: err.code === 'internal_error' ? 'usage limits could not be read' : err.message };
  }

  return {
    auth,
    usageLimits,
    record: {
      toolId: adapter.id,
      status: 'healthy',
      available: true,
      authSupported,
      authenticated,
      authStatus,
      ...(auth?.method ? { authMethod: auth.method } : {}),
      ...(auth?.authenticated && auth.detail ? { authDetail: auth.detail } : {}),
      ...(usageLimits ? { usageLimits } : {}),
      ...(reason ? { reason } : {}),
      ...(detected.version ? { version: detected.version } : {}),
      latencyMs: Math.round(performance.now() - started),
      checkedAt: new Date().toISOString(),
    },
  };
}

/**
 * Health of each tool, reused for a TTL; concurrent callers share one check, which runs under
 * its own bound so a caller that gives up early does not cancel it for the others.
 */
export class HealthService {
  readonly cache: TtlCache<string, HealthRecord>;

  constructor(
    private readonly adapters: ReadonlyMap<string, ToolAdapter>,
    private readonly scope: CallScope,
    private readonly states: ToolStates,
    private readonly detect: (a: ToolAdapter) => Promise<DetectResult>,
    private readonly load: (toolId: string) => ToolLoad,
    ttlMs: number,
    private readonly timeoutMs: number,
  ) {
    this.cache = new TtlCache((id) => this.checkNow(this.adapters.get(id)!), ttlMs);
  }

  private async checkNow(a: ToolAdapter): Promise<HealthRecord> {
    const started = performance.now();
    // Windows are stamped with when the read began: a chat that ends after that is newer.
    const takenAt = Date.now();
    const { ctx, done } = this.scope.track(a.id, { timeoutMs: this.timeoutMs }, `${a.name} health check`);
    const check = raceAbort(this.scope.watch(checkToolHealth(a, ctx, () => this.detect(a))), ctx.signal);
    try {
      const obs = await check;
      if (obs.auth) this.states.learnAuth(a.id, obs.auth);
      let record = obs.record;
      if (obs.usageLimits && !this.states.learnUsage(a.id, obs.usageLimits, takenAt)) {
        // A chat answered while this check ran: its windows are the newer ones (the cache drops this record).
        const newer = this.states.of(a.id).usageLimits;
        const { usageLimits: _older, ...rest } = obs.record;
        record = newer ? { ...rest, usageLimits: newer } : rest;
      }
      const refused = record.authSupported ? this.states.refusedByChat(a.id) : undefined;
      if (!refused) return record.authSupported ? { ...record, authSource: 'check' } : record;
      // The provider refused a chat (401) since: that outweighs a check that reads only files.
      return {
        ...record,
        authenticated: false,
        authStatus: 'unauthenticated',
        authSource: 'chat',
        reason: refused.detail ?? `${a.name} was refused by its provider`,
      };
    } catch (e) {
      const err = failureOf(e, ctx.signal, a.id);
      // A check cut short by close() says nothing about the tool.
      if (this.scope.closed) queueMicrotask(() => this.cache.invalidate(a.id));
      return unavailableRecord(
        a,
        TimeoutError.isInstance(err) ? `health check timed out after ${this.timeoutMs} ms` : err.message,
        started,
      );
    } finally {
      done();
    }
  }

  async health(a: ToolAdapter, options: HealthOptions = {}): Promise<LiveHealthRecord> {
    // A fresh record needs no deadline, signal or timer: this is what polling dashboards hit.
    const fresh = !options.refresh && !this.scope.closed && !options.signal?.aborted ? this.cache.fresh(a.id) : undefined;
    if (fresh) return { ...fresh, load: this.load(a.id) };
    const bound = Math.min(options.timeoutMs ?? this.timeoutMs, this.timeoutMs);
    const started = performance.now();
    const { ctx, done } = this.scope.track(a.id, { signal: options.signal, timeoutMs: bound }, `${a.name} health check`);
    let record: HealthRecord;
    try {
      record = await raceAbort(this.cache.get(a.id, { refresh: options.refresh === true }), ctx.signal);
    } catch (e) {
      const err = failureOf(e, ctx.signal, a.id);
      record = unavailableRecord(a, TimeoutError.isInstance(err) ? `health check timed out after ${bound} ms` : err.message, started);
    } finally {
      done();
    }
    return { ...record, load: this.load(a.id) };
  }
}
