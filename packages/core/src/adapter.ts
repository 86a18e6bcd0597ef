import type { ApprovalGate } from './approvals.js';
import type { AdapterSpecificationVersion } from './specification.js';
import type { McpServerEntry } from './wire/mcp-servers.js';
import type { ConfigKeySchema, ToolbridgeConfig } from './config.js';
import type { Approval } from './wire/approvals.js';
import type {
  Activity,
  AuthStartResult,
  AuthState,
  Capability,
  ChatResult,
  PermissionLevel,
  ResponseFormat,
  ToolMessage,
  ToolType,
  UsageLimits,
  WarmLoad,
} from './types.js';

/**
 * Everything an adapter call may use. Adapters read their settings from `config` (already
 * merged with env defaults) and must stop all work when `signal` aborts.
 */
export interface CallContext {
  /** Effective process-level config: explicit config over env defaults. */
  config: Readonly<ToolbridgeConfig>;
  /** Aborts when the caller cancels or the deadline passes; `signal.reason` says which. */
  signal: AbortSignal;
  /** Milliseconds left before the deadline, when one is set (informational). */
  timeoutMs?: number;
  /** Environment for child processes; defaults to `process.env`. */
  env: NodeJS.ProcessEnv;
  /** The tool this call is for, when there is one. */
  toolId?: string;
  /** The most an agent may be allowed in this call (see `CallOptions.maxPermissions`); the kit's `resolvePermissions` applies it. */
  maxPermissions?: PermissionLevel;
}

/** The context of one chat turn: where the agent works, and a private place for the call's own files. */
export interface ChatContext extends CallContext {
  /**
   * The working directory, decided by core: the caller's `cwd` (checked: it exists and is a
   * directory) or the session's private directory (0700, kept as long as the session).
   */
  cwd: string;
  /**
   * A private directory (0700) for this call's files (schema files, images a CLI wants as a path,
   * a system prompt file), made on first use and removed when the call ends, however it ends.
   */
  scratchDir(): Promise<string>;
  /**
   * Present when the request asked `approvals: "ask"`: the adapter makes its tool ask before each
   * action with a side effect, checks it against the level, then asks here (the kit's
   * `approveAction` does both). Absent: the level alone decides, as before.
   */
  approvals?: ApprovalGate;
  /**
   * Aborts when the caller interrupts the turn (`interrupt(sessionId)`). Unlike `signal`, the
   * session survives: the adapter stops the tool's turn natively (its warm process stays) and
   * ends the stream with a `result` whose `metadata.finishReason` is `"interrupted"`, carrying the
   * text so far.
   */
  interrupt?: AbortSignal;
}

export interface DetectResult {
  available: boolean;
  version?: string;
  models: string[];
  defaultModel?: string;
  /** Capabilities beyond the adapter's static ones that hold on this machine (e.g. `vision`). */
  capabilities?: Capability[];
  /** Why the tool is not available (not installed, unreachable, ...). */
  reason?: string;
  /**
   * Fields whose probe failed this time (a listing that timed out): a failed probe is "unknown",
   * never "no". Discovery keeps the last good answer for them, or reports them unknown (and lets a
   * chat try), and probes again soon.
   */
  unknown?: readonly ProbedField[];
}

/** What a detect() probe fills and may fail to: the model list, the default model, the capabilities. */
export type ProbedField = 'models' | 'defaultModel' | 'capabilities';

/**
 * A stream event. A stream ends with exactly one `result` or throws. `approval` events are core's
 * (an action waiting for the caller's answer, with `approvals: "ask"`); adapters never yield them.
 */
export type StreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'activity'; activity: Activity }
  | { type: 'approval'; approval: Approval }
  | { type: 'result'; result: ChatResult };

/**
 * One turn as an adapter receives it: validated once, at the entry, by core. Adapters never see
 * a `sessionId`: core turns it into `resume` (native sessions) or into `messages` (the transcript).
 */
export interface ToolRequest {
  /** The messages to send this turn. On a native resume only the new ones; otherwise the whole conversation. */
  messages: readonly ToolMessage[];
  model?: string;
  maxTokens?: number;
  temperature?: number;
  /**
   * The level the request asked for; undefined when it set none. Adapters resolve the effective
   * level through the kit (`resolvePermissions`: request, else the tool's own config key, else the
   * `permissions` config key, else read-only), in one place.
   */
  permissions?: PermissionLevel;
  /** More directories the agent may use besides `ctx.cwd` (checked by core). */
  additionalDirs: readonly string[];
  /** The answer's format, to pass to the tool natively: set only when core decided so (else the prompt asks in words). */
  responseFormat?: ResponseFormat;
  /** Continue (or fork) the tool's own session, for adapters whose `features.sessions` says they can. */
  resume?: { nativeSessionId: string; fork: boolean };
  /** MCP servers whose tools the agent gets for this chat (adapters with `features.mcpServers`); never log them. */
  mcpServers?: readonly McpServerEntry[];
}

/** A plain completion (runtimes). */
export interface CompletionRequest {
  prompt: string;
  model?: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
}

export interface CompletionResult {
  text: string;
  usage: Record<string, number>;
  model?: string;
  metadata: Record<string, unknown>;
}

/**
 * What a tool can do beyond a plain chat. Callers, the conformance suite and core's policies
 * read these flags; an absent flag means "no".
 */
export interface AdapterFeatures {
  /** Continues its own sessions natively (`resume`); `fork` too when set. Without it core resends the transcript. */
  sessions?: { resume: boolean; fork: boolean };
  /**
   * JSON answers: `native` when the tool can constrain the model to the schema itself (for the
   * formats `ToolAdapter.takesFormat` accepts); otherwise core asks for JSON in words. Core
   * decides per request and validates every answer either way.
   */
  structuredOutput?: 'native' | 'prompt';
  /** Takes image parts (whether the current model can is `vision` in detect()'s capabilities). */
  images?: boolean;
  /** Reports its steps as `activity` events. */
  activity?: boolean;
  /** Honours `permissions` levels (the levels it can enforce exactly; others are narrowed, never widened). */
  permissions?: readonly PermissionLevel[];
  /** Takes `additionalDirs`. */
  additionalDirs?: boolean;
  /** Has a long-lived warm transport beside spawn-per-chat. */
  warm?: boolean;
  /** Asks before side-effecting actions when `ctx.approvals` is set (`approvals: "ask"`). */
  approvals?: boolean;
  /** Stops a running turn natively on `ctx.interrupt`, keeping the session. */
  interrupt?: boolean;
  /** Gives the agent the request's `mcpServers` (their calls show as `tool_call` activity). */
  mcpServers?: boolean;
}

/**
 * The one seam every tool fits. Everything tool-specific (argv, parsing, credential files,
 * failure classification) stays inside the adapter; the kit (`@toolbridge/adapter-kit`) fills in
 * the generic rest.
 *
 * `checkAuth`/`startAuth` exist only for tools with a login; their presence is what
 * `authSupported` reports.
 */
export interface ToolAdapter {
  /** The contract version this adapter implements (`'v1'`); a registry refuses any other. */
  readonly specificationVersion: AdapterSpecificationVersion;
  readonly id: string;
  readonly name: string;
  readonly type: ToolType;
  readonly capabilities: readonly Capability[];
  readonly features: AdapterFeatures;
  /** JSON Schema of the config keys this adapter owns. */
  readonly configSchema: Readonly<Record<string, ConfigKeySchema>>;

  detect(ctx: CallContext): Promise<DetectResult>;
  checkAuth?(ctx: CallContext): Promise<AuthState>;
  startAuth?(ctx: CallContext): Promise<AuthStartResult>;
  usageLimits?(ctx: CallContext): Promise<UsageLimits>;
  /**
   * With `features.structuredOutput: 'native'`: whether this request's format can go to the tool
   * natively (default: every format). Core asks before each turn; a format it declines reaches
   * `stream` as words in the prompt, without `responseFormat`.
   */
  takesFormat?(format: ResponseFormat, ctx: CallContext): boolean;
  /**
   * Deltas and activity, ending with exactly one `result`. `request.responseFormat` is set only
   * when core chose to ask for it natively: the adapter passes it on to the tool as it is.
   */
  stream(request: ToolRequest, ctx: ChatContext): AsyncIterable<StreamEvent>;
  complete?(request: CompletionRequest, ctx: CallContext): Promise<CompletionResult>;
  /** Start warm processes ahead of the first chat (`serve --warm`). */
  prewarm?(ctx: CallContext): Promise<void>;
  /** The warm transport's processes now, for health records. */
  warmLoad?(): WarmLoad | undefined;
  /** Ends long-lived work (warm processes, open login flows, keep-alive sockets). */
  dispose?(): Promise<void>;
}
