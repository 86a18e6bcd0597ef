import {
  InvalidRequestError,
  type Approval,
  type ApprovalDecision,
  type ApprovalReply,
  type AuthStartResult,
  type ChatRequest,
  type ChatResponse,
  type LiveHealthRecord,
  type FallbackChatResponse,
  type QueueEntry,
  type UsageGrouping,
  type UsageSummary,
  type WindowSnapshot,
  type StreamEvent,
  type Tool,
  type ToolAdapter,
  type ToolbridgeConfig,
} from '@toolbridge/core';
import {
  createRegistry,
  usageQuery,
  dateParam,
  toChatResponse,
  validateChatRequest,
  type ApprovalHandler,
  type CallOptions,
  type ConcurrencyOptions,
  type ConnectedTool,
  type HealthOptions,
  type RegistrySessions,
  type ToolRegistry,
  type ValidChatRequest,
} from '@toolbridge/core/runtime';
import { createOrchestrator, type FallbackOptions, type FallbackStreamEvent, type OrchestratorOptions } from '@toolbridge/orchestrator';
import { defaultAdapters, type DefaultAdapterOptions } from './adapters.js';

export interface ToolbridgeOptions {
  /** The tools to offer; default: the eight of `defaultAdapters()` (Codex, Claude Code, OpenCode, Gemini CLI, Copilot CLI, Pi, Qwen Code, Ollama). */
  adapters?: readonly ToolAdapter[];
  /** Options for the default adapters (ignored when `adapters` is given). */
  adapterOptions?: DefaultAdapterOptions;
  /** Environment for env config defaults and tool processes (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Initial config (validated). */
  config?: ToolbridgeConfig;
  /** How long a discovery result is reused (default 10 s). */
  discoveryTtlMs?: number;
  /** Bound on one tool's detection (default 15 s). */
  detectTimeoutMs?: number;
  /** Bound on one tool's health check (default 10 s). */
  healthTimeoutMs?: number;
  /** How long a health record is reused (default 5 s); `checkHealth(id, { refresh: true })` checks again. */
  healthTtlMs?: number;
  /**
   * Chats each tool may run at once and how many may wait for a slot (default: agents 4 running +
   * 32 waiting, Ollama 8 + 128). A full queue is refused at once with a busy ToolUnavailableError
   * carrying `retryAfterMs`. Top-level fields apply to every tool, `tools: { codex: {...} }` per tool.
   */
  concurrency?: ConcurrencyOptions;
  /** Backoff, rate-limit wait cap and auth re-check settings of the fallback chat. */
  orchestrator?: OrchestratorOptions;
  /** Sessions: where they are kept (default `$XDG_STATE_HOME/toolbridge/sessions`), how many (default 1000), how long (default 30 days). */
  sessions?: { dir?: string; maxSessions?: number; maxAgeMs?: number };
  /** The usage ledger: where (default `$XDG_STATE_HOME/toolbridge/usage`) and how large each of its files may grow (default 8 MiB). */
  usage?: { dir?: string; maxBytes?: number };
}

/** Events of a streamed chat with one tool: deltas and activity as they come, then `done` with the response. */
export type ToolStreamEvent = Exclude<StreamEvent, { type: 'result' }> | { type: 'done'; response: ChatResponse };

/** Sessions of every tool: list, read and delete them; continue one by sending its `sessionId`. */
export type Sessions = Omit<RegistrySessions, 'lock'>;

/** Options of a single-tool chat. */
export interface ChatWithOptions extends CallOptions {
  /** With the request's `approvals: "ask"`: decides each approval (else answer through `tb.approvals.decide`). */
  onApproval?: ApprovalHandler;
}

/** The approvals waiting for an answer, of every chat with `approvals: "ask"` and no `onApproval`. */
export interface Approvals {
  list(): Approval[];
  /** ApprovalNotFoundError (unknown, expired), ApprovalDecidedError (answered already). */
  decide(id: string, reply: ApprovalReply): { id: string; decision: ApprovalDecision };
}

export interface ChatOptions extends Omit<FallbackOptions, 'providers'> {
  /** Tool ids to try, in order; duplicates are collapsed. Default: every tool, in registry order. */
  providers?: readonly string[];
}

export interface Toolbridge {
  readonly registry: ToolRegistry;
  discover(options?: { refresh?: boolean }): Promise<Tool[]>;
  connect(toolId: string): Promise<ConnectedTool>;
  /** Chat with retries and fallback across `providers`. */
  chat(request: ChatRequest | ValidChatRequest, options?: ChatOptions): Promise<FallbackChatResponse>;
  /** Streamed fallback chat: attempts, deltas, then `done`. Fallback only before the first delta. */
  streamChat(request: ChatRequest | ValidChatRequest, options?: ChatOptions): AsyncIterable<FallbackStreamEvent>;
  /** One tool, answered in the spec's single-tool response shape. */
  chatWith(toolId: string, request: ChatRequest | ValidChatRequest, options?: ChatWithOptions): Promise<ChatResponse>;
  /** One tool, streamed: deltas, activity and approvals, then `done` with the single-tool response. */
  streamWith(toolId: string, request: ChatRequest | ValidChatRequest, options?: ChatWithOptions): AsyncIterable<ToolStreamEvent>;
  readonly sessions: Sessions;
  /** Pending approvals (`approvals: "ask"`): list and answer them. */
  readonly approvals: Approvals;
  /**
   * Stop the session's running turn: it ends within 2 s with the text so far and
   * `metadata.finishReason: "interrupted"`; the session stays usable. SessionNotFoundError for an
   * unknown session, SessionIdleError (`session_idle`) when no turn runs.
   */
  interrupt(sessionId: string): Promise<void>;
  /** Start warm tool processes now instead of on first use (a server's start-up); only those of `toolIds` when given. */
  prewarm(options?: CallOptions, toolIds?: readonly string[]): Promise<void>;
  configure(config: ToolbridgeConfig): ToolbridgeConfig;
  getConfig(): ToolbridgeConfig;
  checkHealth(toolId: string, options?: HealthOptions): Promise<LiveHealthRecord>;
  checkAllToolsHealth(options?: HealthOptions): Promise<LiveHealthRecord[]>;
  /**
   * Chats recorded by the usage ledger in a period (default: the last 7 days), grouped by tool, day
   * (UTC) or model (default: tool). Dates are `Date`s or ISO strings; a bad one is an InvalidRequestError.
   */
  usageHistory(query?: { since?: Date | string; until?: Date | string; groupBy?: UsageGrouping }): Promise<UsageSummary>;
  /** Each tool's usage windows each time they changed, oldest first (optionally one tool, since a time). */
  windowHistory(filter?: { toolId?: string; since?: Date | string }): Promise<WindowSnapshot[]>;
  /** Fallback chats waiting for a usage window to reset (`waitForQuota`), and when each will run. */
  waiting(): QueueEntry[];
  /** Start a tool's login; InvalidRequestError for tools without one. */
  startAuth(toolId: string, options?: CallOptions): Promise<AuthStartResult>;
  /** Cancel in-flight calls (killing their processes) and end login flows. */
  close(): Promise<void>;
}

export function createToolbridge(options: ToolbridgeOptions = {}): Toolbridge {
  const adapters = options.adapters ?? defaultAdapters(options.adapterOptions);
  const registry = createRegistry({
    adapters,
    env: options.env,
    discoveryTtlMs: options.discoveryTtlMs,
    detectTimeoutMs: options.detectTimeoutMs,
    healthTimeoutMs: options.healthTimeoutMs,
    healthTtlMs: options.healthTtlMs,
    concurrency: options.concurrency,
    sessions: options.sessions,
    usage: options.usage,
  });
  if (options.config) registry.config.replace(options.config);
  const orchestrator = createOrchestrator(registry, options.orchestrator);
  // Providers given (even invalid ones) are the orchestrator's to validate; absent means every tool.
  const fallback = (o: ChatOptions | undefined): FallbackOptions => {
    const given = o ?? {};
    return given.providers === undefined ? { ...given, providers: registry.toolIds } : (given as FallbackOptions);
  };

  return {
    registry,
    discover: (o) => registry.discover(o),
    connect: (id) => registry.connect(id),
    chat: async (request, o) => orchestrator.chat(request, fallback(o)),
    streamChat: (request, o) => orchestrator.stream(request, fallback(o)),
    async chatWith(toolId, request, o) {
      const adapter = registry.adapter(toolId);
      const valid = await validateChatRequest(request);
      const started = performance.now();
      const result = await registry.chat(toolId, valid, o);
      return toChatResponse(adapter, result, performance.now() - started, valid.model);
    },
    async *streamWith(toolId, request, o) {
      const adapter = registry.adapter(toolId);
      const valid = await validateChatRequest(request);
      const started = performance.now();
      for await (const event of registry.stream(toolId, valid, o)) {
        if (event.type === 'result')
          yield { type: 'done', response: toChatResponse(adapter, event.result, performance.now() - started, valid.model) };
        else yield event;
      }
    },
    sessions: {
      dir: registry.sessions.dir,
      list: () => registry.sessions.list(),
      get: (id) => registry.sessions.get(id),
      delete: (id) => registry.sessions.delete(id),
    },
    approvals: registry.approvals,
    interrupt: (sessionId) => registry.interrupt(sessionId),
    prewarm: (o, toolIds) => registry.prewarm(o, toolIds),
    configure: (config) => registry.config.replace(config),
    getConfig: () => registry.config.get(),
    checkHealth: (id, o) => registry.health(id, o),
    checkAllToolsHealth: (o) => registry.healthAll(o),
    waiting: () => orchestrator.waiting(),
    async usageHistory(query = {}) {
      const iso = (d: Date | string | undefined) => (d instanceof Date ? d.toISOString() : d);
      return registry.usage.summary(usageQuery({ since: iso(query.since), until: iso(query.until), groupBy: query.groupBy }));
    },
    async windowHistory(filter = {}) {
      const since = filter.since instanceof Date ? filter.since : dateParam(filter.since, 'since');
      return registry.usage.windowSnapshots({ toolId: filter.toolId, since });
    },
    async startAuth(toolId, o) {
      const tool = await registry.connect(toolId);
      if (!tool.startAuth) throw new InvalidRequestError(`${tool.name} has no login flow`, { toolId });
      return tool.startAuth(o);
    },
    close: () => registry.close(),
  };
}
