/**
 * toolbridge: use the AI tools already on this machine (Codex, Claude Code, OpenCode, Gemini CLI,
 * Copilot CLI, Ollama) through one interface. The public API, by name: process and stream
 * internals stay in `@toolbridge/core` and `@toolbridge/adapter-kit`.
 */
export {
  createToolbridge,
  type Approvals,
  type ChatOptions,
  type ChatWithOptions,
  type Sessions,
  type Toolbridge,
  type ToolbridgeOptions,
  type ToolStreamEvent,
} from './toolbridge.js';
export {
  chat,
  checkAllToolsHealth,
  checkHealth,
  closeDefaultToolbridge,
  configure,
  connect,
  discover,
  getConfig,
  getDefaultToolbridge,
  sessions,
  streamChat,
  streamWith,
  chatWith,
} from './default.js';
export { defaultAdapters, type DefaultAdapterOptions } from './adapters.js';

// Errors (each with `isInstance()` that holds across duplicated installs)
export {
  AbortedError,
  FallbackExhaustedError,
  InternalError,
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  SessionBusyError,
  SessionIdleError,
  SessionNotFoundError,
  ApprovalDecidedError,
  ApprovalNotFoundError,
  TimeoutError,
  ToolAuthError,
  ToolbridgeError,
  ToolNotFoundError,
  ToolUnavailableError,
  toErrorEnvelope,
  type ErrorCode,
} from '@toolbridge/core';

// Shapes of requests, results and records
export { LIMITS, modelId, parseModelId, PERMISSION_LEVELS, usageTotals } from '@toolbridge/core';
export type { ModelRef, UsageTotals } from '@toolbridge/core';
export type {
  Activity,
  AggregateHealth,
  Approval,
  ApprovalDecision,
  ApprovalHandler,
  ApprovalHandlerAnswer,
  ApprovalKind,
  ApprovalMode,
  ApprovalRecord,
  ApprovalReply,
  Attempt,
  AttemptReason,
  AuthStartResult,
  AuthState,
  CallOptions,
  Capability,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatResult,
  ConnectedTool,
  ContentPart,
  ErrorEnvelope,
  FallbackChatResponse,
  HealthOptions,
  HealthRecord,
  ImagePart,
  LiveHealthRecord,
  PermissionLevel,
  ResponseFormat,
  SessionDetail,
  SessionSummary,
  StreamEvent,
  TextPart,
  Tool,
  ToolAdapter,
  ToolbridgeConfig,
  ToolLoad,
  ToolRegistry,
  TranscriptMessage,
  Usage,
  UsageLimits,
  UsageWindow,
} from '@toolbridge/core';

// The fallback engine and the adapters, for apps that assemble their own
export {
  createOrchestrator,
  MAX_RETRIES,
  type FallbackOptions,
  type FallbackStreamEvent,
  type Orchestrator,
  type OrchestratorOptions,
} from '@toolbridge/orchestrator';
export { createCodexAdapter, type CodexAdapterOptions } from '@toolbridge/adapter-codex';
export { createClaudeCodeAdapter, type ClaudeCodeAdapterOptions } from '@toolbridge/adapter-claude-code';
export { createOpenCodeAdapter, type OpenCodeAdapterOptions } from '@toolbridge/adapter-opencode';
export { createGeminiCliAdapter, type GeminiCliAdapterOptions } from '@toolbridge/adapter-gemini-cli';
export { createCopilotCliAdapter, type CopilotCliAdapterOptions } from '@toolbridge/adapter-copilot-cli';
export { createOllamaAdapter, type OllamaAdapterOptions } from '@toolbridge/adapter-ollama';
