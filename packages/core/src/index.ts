/**
 * @toolbridge/core: the contract. The spec's types and wire schemas, the errors, and the adapter
 * interface (`ToolAdapter`, with its `specificationVersion`): what an adapter implements and what
 * a caller receives, and nothing that runs a chat. The pieces that do (registry, sessions,
 * limiter, usage ledger, config store, helpers adapters share) are `@toolbridge/core/runtime`; the
 * wire contract alone, with no Node API (for browser code), is `@toolbridge/core/wire`.
 */

// The adapter contract
export type * from './adapter.js';
export type * from './approvals.js';
export { ADAPTER_SPECIFICATION_VERSION, type AdapterSpecificationVersion } from './specification.js';
export type { ConfigKeySchema, ToolbridgeConfig } from './config.js';

// Types (the wire's and the library's own) and the wire schemas
export type * from './types.js';
export * as wire from './wire/index.js';
export { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES } from './types.js';
// The value lists callers check against (every other constant of the wire is `wire.<name>`)
export { ACTIVITY_KINDS, ACTIVITY_STATUSES, IMAGE_MEDIA_TYPES, PERMISSION_LEVELS } from './wire/chat.js';
export { ROUTE_POLICIES } from './wire/usage.js';
export { LIMITS } from './limits.js';
export { modelId, parseModelId, type ModelRef } from './model-id.js';

// Errors (each with `isInstance()` that holds across duplicated installs)
export * from './errors.js';
export { attemptReasonOf, retryAfterMsOf, toErrorEnvelope } from './envelope.js';
