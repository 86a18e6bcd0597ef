import type { StreamEvent, ToolAdapter } from './adapter.js';
import { CallScope } from './call-scope.js';
import { createConfigStore, type ConfigKeySchema, type ConfigStore } from './config.js';
import { connectedTool, type ConnectedTool } from './connect.js';
import type { CallOptions } from './context.js';
import { Discovery } from './discovery.js';
import { ApprovalBroker } from './approvals-broker.js';
import { InvalidRequestError, SessionIdleError, ToolNotFoundError } from './errors.js';
import { RunningTurns } from './turn-control.js';
import { checkSpecificationVersion } from './specification.js';
import type { Approval, ApprovalDecision, ApprovalReply } from './wire/approvals.js';
import { collectStream, runTurn, type ChatCallOptions } from './execution.js';
import { coreConfigSchema } from './core-config.js';
import { HealthService, type HealthOptions } from './health.js';
import { createLimiters, type ConcurrencyOptions } from './limiters.js';
import type { ValidChatRequest } from './request.js';
import type { SessionLease } from './sessions/plan.js';
import { SessionStore } from './sessions/store.js';
import { defaultStateDir } from './files.js';
import path from 'node:path';
import { ToolStates, type ToolState } from './tool-state.js';
import { UsageRefresher } from './usage-refresh.js';
import { UsageLedger } from './usage-ledger.js';
import type { ChatRequest, ChatResult, LiveHealthRecord, SessionDetail, SessionSummary, Tool, ToolLoad } from './types.js';

export interface RegistryOptions {
  adapters: readonly ToolAdapter[];
  /** A config store to share; built from the adapters' schemas (and core's own keys) when absent. */
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
   * After a call is cancelled (timeout, abort, close), how long to wait for the adapter to finish
   * cleaning up (its process killed, temporary files removed) before the caller hears of it (default 5 s).
   */
  settleTimeoutMs?: number;
  /** Sessions: where they are kept (default `<state dir>/sessions`), how many, how long. */
  sessions?: { dir?: string; maxSessions?: number; maxAgeMs?: number };
  /** The usage ledger: where (default `<state dir>/usage`) and how large each file may grow (default 8 MiB). */
  usage?: { dir?: string; maxBytes?: number };
}

export interface ToolRegistry {
  readonly config: ConfigStore;
  readonly toolIds: readonly string[];
  has(toolId: string): boolean;
  /** The adapter for an id; throws ToolNotFoundError naming it. */
  adapter(toolId: string): ToolAdapter;
  /** All tools, detected in parallel; each tool's result is cached and concurrent callers share one probe. */
  discover(options?: { refresh?: boolean }): Promise<Tool[]>;
  /** One tool's discovery record; with `allowStale` a record past its TTL answers at once while a probe runs. */
  tool(toolId: string, options?: { refresh?: boolean; allowStale?: boolean }): Promise<Tool>;
  /** Unknown id: ToolNotFoundError; known but not installed/reachable: ToolUnavailableError. */
  connect(toolId: string): Promise<ConnectedTool>;
  health(toolId: string, options?: HealthOptions): Promise<LiveHealthRecord>;
  healthAll(options?: HealthOptions): Promise<LiveHealthRecord[]>;
  /** Chats of a tool running and waiting now, its limits and its transport. */
  load(toolId: string): ToolLoad;
  /** One chat turn on one tool (sessions, structured answers, deadlines, state tracking). */
  chat(toolId: string, input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
  stream(toolId: string, input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): AsyncIterable<StreamEvent>;
  state(toolId: string): ToolState;
  readonly sessions: RegistrySessions;
  /** Approvals waiting for an answer (chats with `approvals: "ask"` and no `onApproval`). */
  readonly approvals: RegistryApprovals;
  /**
   * Interrupt the session's running turn: it ends (within 2 s) with the text so far and
   * `metadata.finishReason: "interrupted"`, and the session stays usable. SessionNotFoundError
   * for an unknown session, SessionIdleError (409 `session_idle`) when no turn runs.
   */
  interrupt(sessionId: string): Promise<void>;
  /** Every finished chat and every change of a tool's usage windows, kept across restarts. */
  readonly usage: UsageLedger;
  /** Start the warm processes of tools that have them (e.g. at `serve` start); only of `toolIds` when given. */
  prewarm(options?: CallOptions, toolIds?: readonly string[]): Promise<void>;
  /** Cancel every in-flight call (killing their processes) and dispose adapters. */
  close(): Promise<void>;
}

export interface RegistrySessions {
  readonly dir: string;
  list(): Promise<SessionSummary[]>;
  get(sessionId: string): Promise<SessionDetail>;
  delete(sessionId: string): Promise<void>;
  /** Hold a session for several turns (a fallback chat); `session_busy` for anyone else meanwhile. */
  lock(sessionId: string): Promise<SessionLease>;
}

export interface RegistryApprovals {
  /** The pending approvals, oldest first. */
  list(): Approval[];
  /** Answer one: 404 `approval_not_found` (unknown, expired), 409 `approval_decided`, 400 a bad reply. */
  decide(id: string, reply: ApprovalReply): { id: string; decision: ApprovalDecision };
}

export function createRegistry(options: RegistryOptions): ToolRegistry {
  const env = options.env ?? process.env;
  const adapters = new Map<string, ToolAdapter>();
  const keys: Record<string, ConfigKeySchema> = { ...coreConfigSchema };
  for (const a of options.adapters) {
    checkSpecificationVersion(a);
    if (adapters.has(a.id)) throw new InvalidRequestError(`two adapters share the id "${a.id}"`);
    adapters.set(a.id, a);
    for (const [k, v] of Object.entries(a.configSchema)) {
      if (k in keys) throw new InvalidRequestError(`config key "${k}" is declared twice (by ${a.id})`);
      keys[k] = v;
    }
  }
  const config = options.config ?? createConfigStore(keys, { env });
  const scope = new CallScope(config, env, options.settleTimeoutMs ?? 5_000);
  const limiters = createLimiters([...adapters.values()], options.concurrency);
  const adapterOf = (toolId: string): ToolAdapter => {
    const a = typeof toolId === 'string' ? adapters.get(toolId) : undefined;
    if (!a) throw new ToolNotFoundError(String(toolId), { known: [...adapters.keys()] });
    return a;
  };
  const discovery = new Discovery(adapters, scope, options.discoveryTtlMs ?? 10_000, options.detectTimeoutMs ?? 15_000);
  const ledger = new UsageLedger({
    dir: options.usage?.dir ?? path.join(defaultStateDir(env), 'usage'),
    maxBytes: options.usage?.maxBytes,
  });
  const usageRefresher = new UsageRefresher(adapters, scope, () => states, options.healthTimeoutMs ?? 10_000);
  const states: ToolStates = new ToolStates(
    {
      health: (id) => healthService.cache.invalidate(id),
      discovery: (id) => discovery.cache.invalidate(id),
      usage: (id) => usageRefresher.request(id),
    },
    (id) => typeof adapters.get(id)?.usageLimits === 'function',
    (id, limits, takenAt) => ledger.recordWindows(id, limits, takenAt),
  );
  const load = (toolId: string): ToolLoad => {
    const a = adapterOf(toolId);
    const warm = a.warmLoad?.();
    return {
      ...limiters.get(toolId)!.load(),
      transport: warm && warm.idleTimeoutMs > 0 ? 'warm' : a.type === 'runtime' ? 'http' : 'spawn',
      ...(warm ? { warm } : {}),
    };
  };
  const healthService: HealthService = new HealthService(
    adapters,
    scope,
    states,
    async (a) => {
      const t = await discovery.tool(a);
      return { available: t.available, version: t.version, models: t.models, defaultModel: t.defaultModel, reason: t.reason };
    },
    load,
    options.healthTtlMs ?? 5_000,
    options.healthTimeoutMs ?? 10_000,
  );
  // Models, defaults and even the login that matters depend on config; a new config means new probes.
  config.onChange(() => {
    discovery.cache.clear();
    healthService.cache.clear();
  });
  const sessions = new SessionStore({
    dir: options.sessions?.dir ?? path.join(defaultStateDir(env), 'sessions'),
    maxSessions: options.sessions?.maxSessions,
    maxAgeMs: options.sessions?.maxAgeMs,
  });
  const broker = new ApprovalBroker();
  const running = new RunningTurns();
  const deps = {
    adapterOf,
    scope,
    limiters,
    states,
    sessions,
    discovery,
    ledger,
    transportOf: (id: string) => load(id).transport,
    approvals: broker,
    running,
  };
  const stream = (toolId: string, input: ChatRequest | ValidChatRequest, o?: ChatCallOptions) => runTurn(deps, toolId, input, o);
  const chat = (toolId: string, input: ChatRequest | ValidChatRequest, o?: ChatCallOptions) => {
    const a = adapterOf(toolId);
    return collectStream(runTurn(deps, toolId, input, o), a.name, toolId);
  };
  const health = (toolId: string, o?: HealthOptions) => healthService.health(adapterOf(toolId), o);

  return {
    config,
    toolIds: [...adapters.keys()],
    has: (id) => adapters.has(id),
    adapter: adapterOf,
    discover: (o) => discovery.all(o),
    tool: async (id, o) => discovery.tool(adapterOf(id), o),
    async connect(toolId) {
      const a = adapterOf(toolId);
      // Detect only this tool, freshly: connecting must not wait on (or re-probe) the others.
      return connectedTool(a, await discovery.tool(a, { refresh: true }), { scope, states, chat, stream, health });
    },
    health,
    healthAll: (o) => Promise.all([...adapters.keys()].map((id) => health(id, o))),
    load,
    chat,
    stream,
    state: (id) => ({ ...states.of(id) }),
    usage: ledger,
    sessions: {
      dir: sessions.dir,
      list: () => sessions.list(),
      get: (id) => sessions.detail(id),
      delete: async (id) => {
        await sessions.delete(id);
        broker.forgetSession(id);
      },
      async lock(id) {
        const record = await sessions.get(id);
        return { sessionId: id, toolId: record.toolId, release: sessions.lock(id) };
      },
    },
    approvals: { list: () => broker.list(), decide: (id, reply) => broker.decide(id, reply) },
    async interrupt(sessionId) {
      if (typeof sessionId === 'string' && running.interrupt(sessionId)) return;
      await sessions.get(sessionId);
      throw new SessionIdleError(sessionId);
    },
    async prewarm(o, toolIds) {
      const chosen = [...adapters.values()].filter((a) => a.prewarm && (!toolIds || toolIds.includes(a.id)));
      await Promise.allSettled(chosen.map((a) => scope.run(a.id, o, `${a.name} warm-up`, (ctx) => a.prewarm!(ctx))));
    },
    async close() {
      await scope.close();
      await ledger.flush();
      await Promise.allSettled([...adapters.values()].map((a) => a.dispose?.()));
    },
  };
}
