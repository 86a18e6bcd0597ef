/**
 * @toolbridge/core: the spec's types and wire schemas, errors, the adapter contract, process
 * config, sessions and the tool registry. Adapters build on `@toolbridge/adapter-kit`; apps use
 * `toolbridge`.
 */

// The adapter contract
export type {
  AdapterFeatures,
  CallContext,
  ChatContext,
  CompletionRequest,
  CompletionResult,
  DetectResult,
  ProbedField,
  StreamEvent,
  ToolAdapter,
  ToolRequest,
} from './adapter.js';

// Approvals and interrupts
export type { ApprovalAnswer, ApprovalGate, ApprovalRequest } from './approvals.js';
export { ApprovalBroker, type ApprovalHandler, type ApprovalHandlerAnswer } from './approvals-broker.js';
export {
  APPROVAL_DECISIONS,
  APPROVAL_KINDS,
  APPROVAL_MODES,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type Approval,
  type ApprovalDecision,
  type ApprovalKind,
  type ApprovalMode,
  type ApprovalRecord,
  type ApprovalReply,
} from './wire/approvals.js';

export type { McpServerEntry } from './wire/mcp-servers.js';

// Types and wire schemas
export * as wire from './wire/index.js';
export {
  ROUTE_POLICIES,
  USAGE_GROUPINGS,
  type QueueEntry,
  type RouteInfo,
  type RoutePolicy,
  type UsageGroup,
  type UsageGrouping,
  type UsageRecord,
  type UsageSummary,
  type WindowSnapshot,
} from './wire/usage.js';
export { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES } from './types.js';
export type {
  Activity,
  ActivityKind,
  ActivityStatus,
  AggregateHealth,
  Attempt,
  AttemptOutcome,
  AttemptReason,
  AttemptStage,
  AuthStartResult,
  AuthState,
  AuthStatus,
  Capability,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatResult,
  ChatRole,
  ContentPart,
  ErrorEnvelope,
  FallbackChatResponse,
  HealthRecord,
  ImageMediaType,
  ImagePart,
  LiveHealthRecord,
  PermissionLevel,
  ResponseFormat,
  SessionDetail,
  SessionSummary,
  TextPart,
  Tool,
  ToolImage,
  ToolLoad,
  ToolMessage,
  ToolPart,
  ToolType,
  TranscriptMessage,
  Usage,
  UsageLimits,
  UsageWindow,
  WarmLoad,
} from './types.js';
export {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  ATTEMPT_REASONS,
  IMAGE_MEDIA_TYPES,
  PERMISSION_LEVELS,
  SESSION_ID_PATTERN,
} from './wire/chat.js';
export { LIMITS, MAX_TIMER_MS } from './limits.js';

// Errors
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
  toToolbridgeError,
  type ErrorCode,
  type RateLimitOptions,
  type ToolbridgeErrorOptions,
} from './errors.js';
export { attemptReasonOf, retryAfterMsOf, toErrorEnvelope } from './envelope.js';

// Requests, answers, sessions
export {
  completeChatRequest,
  isValidChatRequest,
  textOf,
  validateChatRequest,
  type RequestOrigin,
  type ValidChatRequest,
} from './request.js';
export { createAjv, describeSchemaError } from './schema-errors.js';
export {
  checkAnswer,
  compileResponseFormat,
  jsonInstruction,
  jsonTextOf,
  type SchemaProblem,
  type StructuredOutput,
} from './structured.js';
export { imageExtension, sniffImageType } from './images.js';
export { toChatResponse } from './responses.js';
export { usageTotals, type UsageTotals } from './usage.js';
export { modelId, parseModelId, type ModelRef } from './model-id.js';
export {
  approvalsRefusal,
  collectStream,
  imagesRefusal,
  imagesUnsupported,
  mcpServersRefusal,
  noResultError,
  promptForm,
  type ChatCallOptions,
} from './execution.js';
export { toolRequestSettings, type SessionLease } from './sessions/plan.js';
export { newSessionId, SessionStore, type SessionRecord, type SessionStoreOptions } from './sessions/store.js';

// Config
export {
  buildConfigJsonSchema,
  CONFIG_GROUP_KEYWORD,
  createConfigStore,
  defaultEnvName,
  type ConfigKeySchema,
  type ConfigStore,
  type ToolbridgeConfig,
} from './config.js';
export { coreConfigSchema } from './core-config.js';

// Registry and its parts
export { createRegistry, type RegistryApprovals, type RegistryOptions, type RegistrySessions, type ToolRegistry } from './registry.js';
export type { ConnectedTool } from './connect.js';
export { checkToolHealth, type HealthObservation, type HealthOptions } from './health.js';
export type { ToolState } from './tool-state.js';
export { TtlCache, type CacheGetOptions } from './ttl-cache.js';
export {
  ConcurrencyLimiter,
  DEFAULT_CONCURRENCY,
  isBusyError,
  validateConcurrencyLimit,
  type ConcurrencyLimit,
  type LimiterLoad,
} from './limiter.js';
export type { ConcurrencyOptions } from './limiters.js';
export { withoutPassedWindows } from './usage-limits.js';
export { dateParam, UsageLedger, usageQuery, summarize, type UsageLedgerOptions, type UsageQuery } from './usage-ledger.js';

// Helpers adapters and layers above share
export { abortReasonOf, failureOf, raceAbort, settleWithin, sleep } from './abort.js';
export { createCallContext, type CallOptions, type ManagedContext } from './context.js';
export { defaultStateDir, privateDir, writeFileAtomic } from './files.js';
export { quoted, tail, withoutTraces } from './text.js';
