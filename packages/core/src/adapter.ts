import type { AuthStartResult, AuthState, Capability, ChatRequest, ChatResult, ToolType, UsageLimits } from './types.js';
import type { ToolbridgeConfig, ConfigKeySchema } from './config.js';
import { ProviderExecutionError } from './errors.js';

/**
 * Everything an adapter call may use. Adapters read their settings from
 * `config` (already merged with env defaults) and must stop all work when
 * `signal` aborts.
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
}

export interface DetectResult {
  available: boolean;
  version?: string;
  models: string[];
  defaultModel?: string;
  /** Why the tool is not available (not installed, unreachable, ...). */
  reason?: string;
}

/** A stream event. A stream ends with exactly one `result` or throws. */
export type StreamEvent =
  { type: 'delta'; text: string } | { type: 'progress'; item: ProgressItem } | { type: 'result'; result: ChatResult };

/** A non-text step a tool reports while working (reasoning, a shell command, a file edit, ...). */
export interface ProgressItem {
  kind: string;
  /** Tool-specific id of the item, when it has one. */
  id?: string;
  /** `started`, `updated` or `completed`, when the tool distinguishes. */
  status?: string;
  /** Short human-readable text (reasoning summary, command line, ...). */
  text?: string;
  data?: Record<string, unknown>;
}

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
 * The one seam every tool fits. Everything tool-specific (argv, parsing,
 * credential files, failure classification) stays inside the adapter.
 *
 * `checkAuth`/`startAuth` exist only for tools with a login; their presence is
 * what `authSupported` reports.
 */
export interface ToolAdapter {
  readonly id: string;
  readonly name: string;
  readonly type: ToolType;
  readonly capabilities: readonly Capability[];
  /** JSON Schema of the config keys this adapter owns. */
  readonly configSchema: Readonly<Record<string, ConfigKeySchema>>;

  detect(ctx: CallContext): Promise<DetectResult>;
  checkAuth?(ctx: CallContext): Promise<AuthState>;
  startAuth?(ctx: CallContext): Promise<AuthStartResult>;
  usageLimits?(ctx: CallContext): Promise<UsageLimits>;
  chat(request: ChatRequest, ctx: CallContext): Promise<ChatResult>;
  stream(request: ChatRequest, ctx: CallContext): AsyncIterable<StreamEvent>;
  complete?(request: CompletionRequest, ctx: CallContext): Promise<CompletionResult>;
  /** Ends long-lived work (open login flows, keep-alive sockets). */
  dispose?(): Promise<void>;
}

/** Drain a stream into its final result; the default `chat()` of streaming adapters. */
export async function collectStream(events: AsyncIterable<StreamEvent>, toolId?: string): Promise<ChatResult> {
  let result: ChatResult | undefined;
  for await (const event of events) if (event.type === 'result') result = event.result;
  if (!result) throw new ProviderExecutionError(`${toolId ?? 'the tool'} ended its answer without a final result`, { toolId });
  return result;
}
