import type { ToolAdapter } from '@toolbridge/core';
import { createClaudeCodeAdapter, type ClaudeCodeAdapterOptions } from '@toolbridge/adapter-claude-code';
import { createCodexAdapter, type CodexAdapterOptions } from '@toolbridge/adapter-codex';
import { createCopilotCliAdapter, type CopilotCliAdapterOptions } from '@toolbridge/adapter-copilot-cli';
import { createGeminiCliAdapter, type GeminiCliAdapterOptions } from '@toolbridge/adapter-gemini-cli';
import { createOllamaAdapter, type OllamaAdapterOptions } from '@toolbridge/adapter-ollama';
import { createOpenCodeAdapter, type OpenCodeAdapterOptions } from '@toolbridge/adapter-opencode';
import { createPiAdapter, type PiAdapterOptions } from '@toolbridge/adapter-pi';
import { createQwenCodeAdapter, type QwenCodeAdapterOptions } from '@toolbridge/adapter-qwen-code';

export interface DefaultAdapterOptions {
  codex?: CodexAdapterOptions;
  claudeCode?: ClaudeCodeAdapterOptions;
  opencode?: OpenCodeAdapterOptions;
  gemini?: GeminiCliAdapterOptions;
  copilot?: CopilotCliAdapterOptions;
  pi?: PiAdapterOptions;
  qwenCode?: QwenCodeAdapterOptions;
  ollama?: OllamaAdapterOptions;
}

/** All seven adapters, in the order tools are listed: the agents, then the runtime. */
export function defaultAdapters(options: DefaultAdapterOptions = {}): ToolAdapter[] {
  return [
    createCodexAdapter(options.codex),
    createClaudeCodeAdapter(options.claudeCode),
    createOpenCodeAdapter(options.opencode),
    createGeminiCliAdapter(options.gemini),
    createCopilotCliAdapter(options.copilot),
    createPiAdapter(options.pi),
    createQwenCodeAdapter(options.qwenCode),
    createOllamaAdapter(options.ollama),
  ];
}
