/** Types of the Toolbridge interface spec (shared/spec/interface-spec.md). */

export type ToolType = 'agent' | 'runtime';

export type Capability = 'agent-task' | 'code-analysis' | 'code-edit' | 'chat' | 'health-check' | 'completion' | 'model-list';

export const AGENT_CAPABILITIES: readonly Capability[] = ['agent-task', 'code-analysis', 'code-edit', 'chat', 'health-check'];

export const RUNTIME_CAPABILITIES: readonly Capability[] = ['chat', 'completion', 'model-list', 'health-check'];

/** An element of `tools` in the discover response. */
export interface Tool {
  id: string;
  name: string;
  type: ToolType;
  available: boolean;
  /** Version text of the installed tool; absent when it is not installed. */
  version?: string;
  capabilities: Capability[];
  models: string[];
  defaultModel?: string;
  /** Why the tool is not available. */
  reason?: string;
}

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Integer token counts, e.g. `input_tokens`, `output_tokens`, `cached_input_tokens`. */
export type Usage = Record<string, number>;

/** What a caller asks of one tool. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Model to use; defaults to the configured model of the tool. */
  model?: string;
  /** Working directory for agents; a fresh temporary directory when absent. */
  cwd?: string;
  maxTokens?: number;
  temperature?: number;
}

/** What the library's `chat()` resolves to: `{ message, usage, metadata }`. */
export interface ChatResult {
  message: ChatMessage & { role: 'assistant' };
  usage: Usage;
  /** The model that answered, when the tool reports it. */
  model?: string;
  metadata: Record<string, unknown>;
}

/** Chat response from one tool (POST /chat/:toolId). */
export interface ChatResponse {
  toolId: string;
  type: ToolType;
  model: string;
  result: { message: ChatMessage; usage: Usage };
  latencyMs: number;
}

export type AttemptStage = 'preflight' | 'execution';
export type AttemptOutcome = 'skipped' | 'failed' | 'succeeded';
export type AttemptReason =
  | 'timeout'
  | 'unavailable'
  /** The tool's concurrency queue was full. */
  | 'busy'
  | 'unauthenticated'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'provider_execution_failed'
  | 'not_found'
  | 'invalid_request'
  | 'aborted'
  | 'internal_error';

export interface Attempt {
  toolId: string;
  tryIndex: number;
  stage: AttemptStage;
  outcome: AttemptOutcome;
  reason?: AttemptReason;
  message?: string;
  latencyMs: number;
}

export interface FallbackChatRequest {
  providers: string[];
  messages: ChatMessage[];
  retries?: number;
  perAttemptTimeoutMs?: number;
  timeoutMs?: number;
  model?: string;
}

export interface FallbackChatResponse extends ChatResponse {
  fallbackUsed: boolean;
  attempts: Attempt[];
}

export interface UsageWindow {
  usedPercentage: number;
  remainingPercentage: number;
  /** ISO 8601 UTC. */
  resetsAt?: string;
  windowMinutes?: number;
}

export interface UsageLimits {
  /** `available` when windows are known; `unavailable` with a `reason` otherwise. */
  status: 'available' | 'unavailable';
  source?: 'local_session' | string;
  plan?: string;
  windows?: Record<string, UsageWindow>;
  /** When the snapshot was observed (ISO 8601 UTC). */
  observedAt?: string;
  reason?: string;
}

export type AuthStatus = 'authenticated' | 'unauthenticated' | 'not_required' | 'unknown';

/** What an adapter's `checkAuth()` reports. */
export interface AuthState {
  authenticated: boolean;
  /** How the user is logged in (`chatgpt`, `api_key`, `claude.ai`, ...). */
  method?: string;
  /** Plan/subscription name when the tool reports one. */
  plan?: string;
  detail?: string;
}

/** Auth start result (POST /auth/:toolId). */
export interface AuthStartResult {
  toolId: string;
  status: 'started' | 'already_authenticated' | 'manual' | 'in_progress';
  authenticated: boolean;
  command: string;
  instructions: string;
  output: string;
  url?: string;
  checkedAt: string;
}

/** Health record of one tool. */
export interface HealthRecord {
  toolId: string;
  status: 'healthy' | 'unavailable';
  available: boolean;
  authSupported: boolean;
  authenticated: boolean;
  authStatus: AuthStatus;
  authMethod?: string;
  usageLimits?: UsageLimits;
  reason?: string;
  version?: string;
  latencyMs: number;
  checkedAt: string;
}

export interface AggregateHealth {
  status: 'ok';
  version: string;
  uptimeMs: number;
  tools: HealthRecord[];
}

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    toolId?: string;
    retryable?: boolean;
    retryAfterMs?: number;
    attempts?: Attempt[];
    [key: string]: unknown;
  };
}
