export * from '@toolbridge/core';
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
export { createOllamaAdapter, type OllamaAdapterOptions } from '@toolbridge/adapter-ollama';
export * from './adapters.js';
export * from './toolbridge.js';
export * from './default.js';
