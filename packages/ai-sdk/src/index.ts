/**
 * @toolbridge/ai-sdk: the AI tools already on this machine (Codex, Claude Code, OpenCode, Ollama),
 * one at a time or as a fallback chain, as Vercel AI SDK language models (specification v4).
 */
export { createToolbridge, toolbridge, type ToolbridgeProvider, type ToolbridgeProviderSettings } from './provider.js';
export { ToolbridgeLanguageModel } from './model.js';
export type { ToolbridgeCallSettings, ToolbridgeFallbackSettings, ToolbridgeProviderOptions } from './settings.js';
