/**
 * @toolbridge/core/runtime: what runs the contract. The registry (discovery, health, the one path
 * of a chat turn, sessions, concurrency, the usage ledger, approvals), request validation, the
 * config store, and the helpers adapters and the layers above share. Apps reach these through
 * `toolbridge`; adapters through `@toolbridge/adapter-kit` and this entry point.
 */

// The registry and what it is built from
export { createRegistry, type RegistryOptions, type RegistrySessions, type ToolRegistry } from './registry.js';
export type { ConnectedTool } from './connect.js';
export type { HealthOptions } from './health.js';
export type { ToolState } from './tool-state.js';
export type { ConcurrencyOptions } from './limiters.js';
export { isBusyError } from './limiter.js';
export type { ApprovalHandler, ApprovalHandlerAnswer } from './approvals-broker.js';
export { createConfigStore } from './config.js';

// Requests and answers
export { completeChatRequest, textOf, validateChatRequest, type ValidChatRequest } from './request.js';
export { createAjv, describeSchemaError } from './schema-errors.js';
export { jsonInstruction } from './structured.js';
export { imageExtension, sniffImageType } from './images.js';
export { toChatResponse } from './responses.js';
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

// Usage
export { usageTotals, type UsageTotals } from './usage.js';
export { withoutPassedWindows } from './usage-limits.js';
export { dateParam, usageQuery } from './usage-ledger.js';

// Helpers adapters and the layers above share
export { abortReasonOf, failureOf, raceAbort, sleep } from './abort.js';
export { createCallContext, type CallOptions } from './context.js';
export { defaultStateDir, writeFileAtomic } from './files.js';
export { quoted, tail } from './text.js';
export { TtlCache } from './ttl-cache.js';
