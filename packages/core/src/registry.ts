import type { CallContext, CompletionRequest, CompletionResult, StreamEvent, ToolAdapter } from './adapter.js';
import { createConfigStore, type ConfigKeySchema, type ConfigStore } from './config.js';
import { createCallContext, raceAbort, type CallOptions } from './context.js';
import {
  AbortedError,
  InvalidRequestError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  ToolNotFoundError,
  ToolUnavailableError,
  ToolbridgeError,
  toToolbridgeError,
} from './errors.js';
import { checkToolHealth } from './health.js';
import { ConcurrencyLimiter, DEFAULT_CONCURRENCY, validateConcurrencyLimit, type ConcurrencyLimit, type LimiterLoad } from './limiter.js';
import { validateChatRequest } from './schemas.js';
import { withoutPassedWindows } from './usage-limits.js';
import type {
  AuthStartResult,
  AuthState,
  Capability,
  ChatRequest,
  ChatResult,
  HealthRecord,
  Tool,
  ToolType,
  UsageLimits,
} from './types.js';

export interface RegistryOptions {
  adapters: readonly ToolAdapter[];
  /** A config store to share; built from the adapters' schemas when absent. */
  config?: ConfigStore;
  /** Environment for env defaults and child processes (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** How long a discovery result is reused (default 10 s). */
  discoveryTtlMs?: number;
  /** Bound on one tool's detection (default 15 s). */
  detectTimeoutMs?: number;
  /** Bound on one tool's health check (default 10 s). */
  healthTimeoutMs?: number;
  /** How long a health record is reused (default 5 s); `refresh: true` checks again. */
  healthTtlMs?: number;
  /**
   * Chats each tool may run at once and how many may wait (default: agents 4 + 32 waiting,
   * runtimes 8 + 128). Top-level fields apply to every tool, `tools` per tool id.
   */
  concurrency?: ConcurrencyOptions;
  /**
   * After a call is cancelled (timeout, abort, close), how long to wait for the adapter to
   * finish cleaning up (its process killed, temporary files removed) before the caller
   * hears about it (default 5 s).
   */
  settleTimeoutMs?: number;
}

export interface ConcurrencyOptions extends Partial<ConcurrencyLimit> {
  tools?: Record<string, Partial<ConcurrencyLimit>>;
}

/** Options of a health check. */
export interface HealthOptions extends CallOptions {
  /** Check now instead of reusing a record younger than the health TTL. */
  refresh?: boolean;
}

/** A health record with the tool's live load (chats running and waiting, and their limits). */
export type LiveHealthRecord = HealthRecord & { load: LimiterLoad };

/** What the registry last learned about a tool; used to skip tools that cannot answer. */
export interface ToolState {
  auth?: AuthState & { observedAt: number };
  usageLimits?: UsageLimits;
  /** A rate limit seen on a recent chat: the tool is cooling down until then (epoch ms). */
  coolDownUntil?: number;
  coolDownReason?: 'rate_limited' | 'quota_exceeded';
}

export interface ConnectedTool {
  readonly id: string;
  readonly name: string;
  readonly type: ToolType;
  readonly capabilities: readonly Capability[];
  readonly version?: string;
  readonly models: readonly string[];
  readonly defaultModel?: string;
  chat(input: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  stream(input: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
  health(options?: HealthOptions): Promise<LiveHealthRecord>;
  /** Only on tools with a login. */
  checkAuth?(options?: CallOptions): Promise<AuthState>;
  /** Only on tools with a login. */
  startAuth?(options?: CallOptions): Promise<AuthStartResult>;
  usageLimits?(options?: CallOptions): Promise<UsageLimits>;
  /** Only on runtimes with the `completion` capability. */
  complete?(input: CompletionRequest, options?: CallOptions): Promise<CompletionResult>;
}

export interface ToolRegistry {
  readonly config: ConfigStore;
  readonly toolIds: readonly string[];
  has(toolId: string): boolean;
  /** The adapter for an id; throws ToolNotFoundError naming it. */
  adapter(toolId: string): ToolAdapter;
  /** All tools, detected in parallel; each tool's result is cached for `discoveryTtlMs` and concurrent callers share one probe. */
  discover(options?: { refresh?: boolean }): Promise<Tool[]>;
  /**
   * One tool's discovery record (from the same cache). With `allowStale`, a record past its TTL
   * is returned at once while a fresh probe runs in the background (the chat path never waits on one).
   */
  tool(toolId: string, options?: { refresh?: boolean; allowStale?: boolean }): Promise<Tool>;
  /** Unknown id: ToolNotFoundError; known but not installed/reachable: ToolUnavailableError. */
  connect(toolId: string): Promise<ConnectedTool>;
  /** A tool's health, reused for `healthTtlMs` (concurrent callers share one check) unless `refresh`. */
  health(toolId: string, options?: HealthOptions): Promise<LiveHealthRecord>;
  /** Every tool in parallel, each bounded by `healthTimeoutMs`. */
  healthAll(options?: HealthOptions): Promise<LiveHealthRecord[]>;
  /** Chats of a tool running and waiting now, and its limits. */
  load(toolId: string): LimiterLoad;
  /** Run a chat on one tool with deadline handling and state tracking (used by connect and the orchestrator). */
  chat(toolId: string, input: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  stream(toolId: string, input: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
  state(toolId: string): ToolState;
  /** Cancel every in-flight call (killing their processes) and dispose adapters. */
  close(): Promise<void>;
}

export function createRegistry(options: RegistryOptions): ToolRegistry {
  const env = options.env ?? process.env;
  const adapters = new Map<string, ToolAdapter>();
  const keys: Record<string, ConfigKeySchema> = {};
  for (const a of options.adapters) {
    if (adapters.has(a.id)) throw new InvalidRequestError(`two adapters share the id "${a.id}"`);
    adapters.set(a.id, a);
    for (const [k, v] of Object.entries(a.configSchema)) {
      if (k in keys) throw new InvalidRequestError(`config key "${k}" is declared by two adapters`);
      keys[k] = v;
    }
  }
  const config = options.config ?? createConfigStore(keys, { env });
  const ttl = options.discoveryTtlMs ?? 10_000;
  const detectTimeoutMs = options.detectTimeoutMs ?? 15_000;
  const healthTimeoutMs = options.healthTimeoutMs ?? 10_000;
  const settleTimeoutMs = options.settleTimeoutMs ?? 5_000;
  const healthTtlMs = options.healthTtlMs ?? 5_000;
  const limiters = createLimiters([...adapters.values()], options.concurrency);
  /** Adapter work still running, so close() can wait for it to wind down. */
  const pendingWork = new Set<Promise<void>>();
  const states = new Map<string, ToolState>();
  const inflight = new Set<AbortController>();
  let closed = false;

  // One cache entry per tool, so a hung tool never holds up the others' results.
  const detections = new Map<string, { at: number; promise: Promise<Tool>; settled: boolean; previous?: Promise<Tool> }>();
  const healthChecks = new Map<string, { at: number; promise: Promise<HealthRecord>; settled: boolean; record?: HealthRecord }>();
  // Models, defaults and even the login that matters depend on config; a new config means new probes.
  config.onChange(() => {
    detections.clear();
    healthChecks.clear();
  });

  const stateOf = (id: string): ToolState => {
    let s = states.get(id);
    if (!s) states.set(id, (s = {}));
    return s;
  };

  const adapterOf = (toolId: string): ToolAdapter => {
    const a = typeof toolId === 'string' ? adapters.get(toolId) : undefined;
    if (!a) throw new ToolNotFoundError(String(toolId), { known: [...adapters.keys()] });
    return a;
  };

  /** A context tracked for close(); its signal aborts on timeout, caller abort or close. */
  const track = (toolId: string | undefined, callOptions: CallOptions = {}, what?: string) => {
    if (closed) throw new ToolUnavailableError('Toolbridge is shutting down', { toolId });
    const closer = new AbortController();
    inflight.add(closer);
    const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, closer.signal]) : closer.signal;
    const managed = createCallContext({ config: config.effective(), env, toolId, what }, { timeoutMs: callOptions.timeoutMs, signal });
    return {
      ctx: managed.ctx,
      done() {
        managed.done();
        inflight.delete(closer);
      },
    };
  };

  /** Track an adapter's own promise (not the caller's race against the signal). */
  const watch = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    pendingWork.add(settled);
    void settled.then(() => pendingWork.delete(settled));
    return work;
  };

  /** Wait, at most `settleTimeoutMs`, for cancelled work to wind down. */
  const settle = (work: Promise<unknown>): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, settleTimeoutMs);
      timer.unref();
      void work.then(
        () => (clearTimeout(timer), resolve()),
        () => (clearTimeout(timer), resolve()),
      );
    });

  /** Run adapter work under a tracked context; a cancelled call returns only once the adapter has cleaned up. */
  const runTracked = async <T>(
    toolId: string,
    callOptions: CallOptions | undefined,
    what: string,
    fn: (ctx: CallContext) => Promise<T>,
  ): Promise<{ value: T; ctx: CallContext }> => {
    const { ctx, done } = track(toolId, callOptions, what);
    const work = watch(fn(ctx));
    try {
      return { value: await raceAbort(work, ctx.signal), ctx };
    } catch (e) {
      if (ctx.signal.aborted) await settle(work);
      throw failureOf(e, ctx);
    } finally {
      done();
    }
  };

  const detectOne = async (a: ToolAdapter): Promise<Tool> => {
    const base = { id: a.id, name: a.name, type: a.type, capabilities: [...a.capabilities] };
    try {
      const { value: d } = await runTracked(a.id, { timeoutMs: detectTimeoutMs }, `${a.name} detection`, (ctx) => a.detect(ctx));
      return {
        ...base,
        available: d.available,
        ...(d.version ? { version: d.version } : {}),
        models: d.models,
        ...(d.defaultModel ? { defaultModel: d.defaultModel } : {}),
        ...(d.available ? {} : { reason: d.reason ?? `${a.name} is not available` }),
      };
    } catch (e) {
      const err = toToolbridgeError(e);
      return {
        ...base,
        available: false,
        models: [],
        reason: err.code === 'internal_error' ? `${a.name} could not be detected` : err.message,
      };
    }
  };

  /** A tool's detection, reused for `discoveryTtlMs`; concurrent callers share one probe. */
  const detectCached = (a: ToolAdapter, refresh = false, allowStale = false): Promise<Tool> => {
    const cached = detections.get(a.id);
    // A probe under way is always shared; a finished one is reused until it is stale or a refresh is asked for.
    if (cached && !cached.settled) return allowStale && cached.previous ? cached.previous : cached.promise;
    if (cached && !refresh && Date.now() - cached.at < ttl) return cached.promise;
    const entry: { at: number; settled: boolean; promise: Promise<Tool>; previous?: Promise<Tool> } = {
      at: Date.now(),
      settled: false,
      promise: detectOne(a),
      previous: cached?.promise,
    };
    // detectOne does not reject (failures are "unavailable" records); the handler is for safety.
    void entry.promise.then(
      () => {
        entry.settled = true;
        entry.at = Date.now();
        entry.previous = undefined;
      },
      () => detections.delete(a.id),
    );
    detections.set(a.id, entry);
    return allowStale && !refresh && entry.previous ? entry.previous : entry.promise;
  };

  const discover = (opts: { refresh?: boolean } = {}): Promise<Tool[]> =>
    Promise.all([...adapters.values()].map((a) => detectCached(a, opts.refresh)));

  const tool = async (toolId: string, opts?: { refresh?: boolean; allowStale?: boolean }): Promise<Tool> => {
    return detectCached(adapterOf(toolId), opts?.refresh, opts?.allowStale);
  };

  /** A cached health record that a chat has just proved wrong is dropped (a probe under way is kept). */
  const invalidateHealth = (toolId: string) => {
    if (healthChecks.get(toolId)?.settled) healthChecks.delete(toolId);
  };

  /** Remember what a failure says about the tool, for later preflight decisions. */
  const learnFrom = (toolId: string, error: ToolbridgeError) => {
    const s = stateOf(toolId);
    if (ToolAuthError.isInstance(error)) {
      s.auth = { authenticated: false, detail: error.message, observedAt: Date.now() };
      invalidateHealth(toolId);
    } else if (RateLimitError.isInstance(error)) {
      const wait = (error as RateLimitError).waitMs();
      if (wait !== undefined && wait > 0) {
        s.coolDownUntil = Date.now() + wait;
        s.coolDownReason = QuotaExceededError.isInstance(error) ? 'quota_exceeded' : 'rate_limited';
      }
      // Usage windows come from the provider's last answer: this one changed them.
      invalidateHealth(toolId);
    } else if (ToolUnavailableError.isInstance(error) && (error as ToolbridgeError).details?.notInstalled === true) {
      // The tool went away since it was detected: the next discovery must not claim it is there.
      if (detections.get(toolId)?.settled) detections.delete(toolId);
      invalidateHealth(toolId);
    }
  };

  /** A chat answered: the tool is logged in, whatever an older check said. */
  const learnSuccess = (toolId: string) => {
    const s = stateOf(toolId);
    // Usage windows come from each answer (session logs, rate-limit headers): an answer makes them newer.
    if (s.auth?.authenticated === false || adapters.get(toolId)?.usageLimits) invalidateHealth(toolId);
    s.auth = { authenticated: true, observedAt: Date.now() };
    s.coolDownUntil = undefined;
  };

  /** A slot of the tool's limiter, waited for under the call's own deadline and signal. */
  const acquireSlot = (toolId: string, ctx: CallContext): Promise<() => void> => limiters.get(toolId)!.acquire(ctx.signal);

  const failureOf = (e: unknown, ctx: CallContext): ToolbridgeError => {
    // The deadline or the caller decides what the failure is, whatever the adapter threw on the way out.
    if (ctx.signal.aborted) {
      const reason = ctx.signal.reason;
      return ToolbridgeError.isInstance(reason) ? reason : new AbortedError(undefined, { toolId: ctx.toolId });
    }
    return toToolbridgeError(e);
  };

  /** The limiter's own account of a deadline that passed in the queue says more than the bare timeout. */
  const failureInQueue = (e: unknown, release: (() => void) | undefined): ToolbridgeError | undefined =>
    release === undefined && TimeoutError.isInstance(e) ? e : undefined;

  const chat = async (toolId: string, input: ChatRequest, callOptions: CallOptions = {}): Promise<ChatResult> => {
    const a = adapterOf(toolId);
    const request = validateChatRequest(input);
    const started = performance.now();
    const { ctx, done } = track(toolId, callOptions, `${a.name} chat`);
    let release: (() => void) | undefined;
    let work: Promise<ChatResult> | undefined;
    try {
      // The wait for a slot counts against the call's deadline.
      release = await acquireSlot(toolId, ctx);
      work = watch(a.chat(request, ctx));
      const result = await raceAbort(work, ctx.signal);
      learnSuccess(toolId);
      return {
        ...result,
        metadata: { ...result.metadata, toolId, latencyMs: Math.round(performance.now() - started) },
      };
    } catch (e) {
      // The caller hears of a cancellation only once the tool's process and files are gone.
      if (ctx.signal.aborted && work) await settle(work);
      const err = failureInQueue(e, release) ?? failureOf(e, ctx);
      learnFrom(toolId, err);
      throw err;
    } finally {
      release?.();
      done();
    }
  };

  async function* stream(toolId: string, input: ChatRequest, callOptions: CallOptions = {}): AsyncIterable<StreamEvent> {
    const a = adapterOf(toolId);
    const request = validateChatRequest(input);
    const started = performance.now();
    const { ctx, done } = track(toolId, callOptions, `${a.name} chat`);
    let release: (() => void) | undefined;
    let iterator: AsyncIterator<StreamEvent> | undefined;
    try {
      release = await acquireSlot(toolId, ctx);
      iterator = a.stream(request, ctx)[Symbol.asyncIterator]();
      for (;;) {
        const next = await raceAbort(iterator.next(), ctx.signal);
        if (next.done) break;
        const event = next.value;
        if (event.type === 'result') {
          learnSuccess(toolId);
          yield {
            type: 'result',
            result: {
              ...event.result,
              metadata: { ...event.result.metadata, toolId, latencyMs: Math.round(performance.now() - started) },
            },
          };
        } else yield event;
      }
    } catch (e) {
      const err = failureInQueue(e, release) ?? failureOf(e, ctx);
      learnFrom(toolId, err);
      throw err;
    } finally {
      // Ends the adapter's work (and kills its process) when the consumer stops early. After an
      // abort the adapter may still be mid-await on its dying process: wait, but only so long.
      if (iterator) {
        const it = iterator;
        const closing = watch(Promise.resolve(it.return?.()).catch(() => undefined));
        if (ctx.signal.aborted) await settle(closing);
        else await closing;
      }
      release?.();
      done();
    }
  }

  const unavailableRecord = (a: ToolAdapter, reason: string, started: number): HealthRecord => ({
    toolId: a.id,
    status: 'unavailable',
    available: false,
    authSupported: typeof a.checkAuth === 'function',
    authenticated: false,
    authStatus: typeof a.checkAuth === 'function' ? 'unknown' : 'not_required',
    reason,
    latencyMs: Math.round(performance.now() - started),
    checkedAt: new Date().toISOString(),
  });

  /** One check of a tool, under its own bound: callers come and go, the check serves them all. */
  const checkHealthNow = async (a: ToolAdapter): Promise<HealthRecord> => {
    const started = performance.now();
    const { ctx, done } = track(a.id, { timeoutMs: healthTimeoutMs }, `${a.name} health check`);
    try {
      const obs = await raceAbort(
        watch(
          checkToolHealth(a, ctx, async () => {
            const t = await detectCached(a);
            return { available: t.available, version: t.version, models: t.models, defaultModel: t.defaultModel, reason: t.reason };
          }),
        ),
        ctx.signal,
      );
      const s = stateOf(a.id);
      if (obs.auth) s.auth = { ...obs.auth, observedAt: Date.now() };
      if (obs.usageLimits) s.usageLimits = obs.usageLimits;
      return obs.record;
    } catch (e) {
      const err = failureOf(e, ctx);
      return unavailableRecord(
        a,
        TimeoutError.isInstance(err) ? `health check timed out after ${healthTimeoutMs} ms` : err.message,
        started,
      );
    } finally {
      done();
    }
  };

  /** The cached check, or a new one (shared by everyone asking while it runs). */
  const healthCached = (a: ToolAdapter, refresh: boolean): Promise<HealthRecord> => {
    const cached = healthChecks.get(a.id);
    if (cached && (!cached.settled || (!refresh && Date.now() - cached.at < healthTtlMs))) return cached.promise;
    const entry: { at: number; settled: boolean; promise: Promise<HealthRecord>; record?: HealthRecord } = {
      at: Date.now(),
      settled: false,
      promise: checkHealthNow(a),
    };
    void entry.promise.then((record) => {
      entry.settled = true;
      entry.record = record;
      entry.at = Date.now();
      // A check cut short by close() says nothing about the tool.
      if (closed && healthChecks.get(a.id) === entry) healthChecks.delete(a.id);
    });
    healthChecks.set(a.id, entry);
    return entry.promise;
  };

  const health = async (toolId: string, callOptions: HealthOptions = {}): Promise<LiveHealthRecord> => {
    const a = adapterOf(toolId);
    // A fresh record needs no deadline, signal or timer: this is what polling dashboards hit.
    const cached = healthChecks.get(toolId);
    if (!closed && !callOptions.refresh && cached?.record && Date.now() - cached.at < healthTtlMs && !callOptions.signal?.aborted) {
      return { ...cached.record, load: limiters.get(toolId)!.load() };
    }
    const bound = Math.min(callOptions.timeoutMs ?? healthTimeoutMs, healthTimeoutMs);
    const started = performance.now();
    const { ctx, done } = track(toolId, { signal: callOptions.signal, timeoutMs: bound }, `${a.name} health check`);
    let record: HealthRecord;
    try {
      record = await raceAbort(healthCached(a, callOptions.refresh === true), ctx.signal);
    } catch (e) {
      const err = failureOf(e, ctx);
      record = unavailableRecord(a, TimeoutError.isInstance(err) ? `health check timed out after ${bound} ms` : err.message, started);
    } finally {
      done();
    }
    return { ...record, load: limiters.get(toolId)!.load() };
  };

  const withContext = async <T>(
    toolId: string,
    what: string,
    callOptions: CallOptions | undefined,
    fn: (ctx: CallContext) => Promise<T>,
  ): Promise<T> => (await runTracked(toolId, callOptions, what, fn)).value;

  const connect = async (toolId: string): Promise<ConnectedTool> => {
    const a = adapterOf(toolId);
    // Detect only this tool, freshly: connecting must not wait on (or re-probe) the others.
    const t = await detectCached(a, true);
    if (!t.available) {
      throw new ToolUnavailableError(t.reason ?? `${a.name} is not available`, { toolId });
    }
    const connected: ConnectedTool = {
      id: a.id,
      name: a.name,
      type: a.type,
      capabilities: a.capabilities,
      version: t.version,
      models: t.models,
      defaultModel: t.defaultModel,
      chat: (input, o) => chat(toolId, input, o),
      stream: (input, o) => stream(toolId, input, o),
      health: (o) => health(toolId, o),
    };
    if (a.checkAuth) {
      connected.checkAuth = (o) =>
        withContext(toolId, `${a.name} auth check`, o, async (ctx) => {
          const s = await a.checkAuth!(ctx);
          stateOf(toolId).auth = { ...s, observedAt: Date.now() };
          return s;
        });
    }
    if (a.startAuth) connected.startAuth = (o) => withContext(toolId, `${a.name} login`, o, (ctx) => a.startAuth!(ctx));
    if (a.usageLimits) {
      connected.usageLimits = (o) =>
        withContext(toolId, `${a.name} usage limits`, o, async (ctx) => withoutPassedWindows(await a.usageLimits!(ctx)));
    }
    if (a.complete) connected.complete = (input, o) => withContext(toolId, `${a.name} completion`, o, (ctx) => a.complete!(input, ctx));
    return connected;
  };

  return {
    config,
    toolIds: [...adapters.keys()],
    has: (id) => adapters.has(id),
    adapter: adapterOf,
    discover,
    tool,
    connect,
    health,
    healthAll: (o) => Promise.all([...adapters.keys()].map((id) => health(id, o))),
    load: (id) => limiters.get(adapterOf(id).id)!.load(),
    chat,
    stream,
    state: (id) => ({ ...stateOf(id) }),
    async close() {
      closed = true;
      for (const c of inflight) c.abort(new ToolUnavailableError('Toolbridge is shutting down'));
      inflight.clear();
      // Resolve only once the cancelled calls have killed their processes and removed their files.
      await settle(Promise.allSettled([...pendingWork]));
      await Promise.allSettled([...adapters.values()].map((a) => a.dispose?.()));
    },
  };
}

function createLimiters(adapters: readonly ToolAdapter[], options: ConcurrencyOptions = {}): Map<string, ConcurrencyLimiter> {
  const { tools = {}, ...everyTool } = options;
  for (const id of Object.keys(tools)) {
    if (!adapters.some((a) => a.id === id)) throw new InvalidRequestError(`concurrency is set for unknown tool "${id}"`);
  }
  const limiters = new Map<string, ConcurrencyLimiter>();
  for (const a of adapters) {
    const limit = validateConcurrencyLimit(
      { ...DEFAULT_CONCURRENCY[a.type], ...stripUndefined(everyTool), ...stripUndefined(tools[a.id] ?? {}) },
      `concurrency of ${a.id}`,
    );
    limiters.set(a.id, new ConcurrencyLimiter(limit, { toolId: a.id, name: a.name }));
  }
  return limiters;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
