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

// The contract: errors (each with `isInstance()` that holds across duplicated installs), the
// request, result and record types, the wire schemas (`wire`) and limits
export * from '@toolbridge/core';

// What the runtime gives back
export { usageTotals, type UsageTotals } from '@toolbridge/core/runtime';
export type {
  ApprovalHandler,
  ApprovalHandlerAnswer,
  CallOptions,
  ConnectedTool,
  HealthOptions,
  ToolRegistry,
} from '@toolbridge/core/runtime';

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
export { createPiAdapter, type PiAdapterOptions } from '@toolbridge/adapter-pi';
export { createQwenCodeAdapter, type QwenCodeAdapterOptions } from '@toolbridge/adapter-qwen-code';
export { createOllamaAdapter, type OllamaAdapterOptions } from '@toolbridge/adapter-ollama';
