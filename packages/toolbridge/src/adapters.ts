import type { ToolAdapter } from '@toolbridge/core';
import { createClaudeCodeAdapter, type ClaudeCodeAdapterOptions } from '@toolbridge/adapter-claude-code';
import { createCodexAdapter, type CodexAdapterOptions } from '@toolbridge/adapter-codex';
import { createOllamaAdapter, type OllamaAdapterOptions } from '@toolbridge/adapter-ollama';
import { createOpenCodeAdapter, type OpenCodeAdapterOptions } from '@toolbridge/adapter-opencode';

export interface DefaultAdapterOptions {
  codex?: CodexAdapterOptions;
  claudeCode?: ClaudeCodeAdapterOptions;
  opencode?: OpenCodeAdapterOptions;
  ollama?: OllamaAdapterOptions;
}

/** All four adapters, in the order tools are listed. */
export function defaultAdapters(options: DefaultAdapterOptions = {}): ToolAdapter[] {
  return [
    createCodexAdapter(options.codex),
    createClaudeCodeAdapter(options.claudeCode),
    createOpenCodeAdapter(options.opencode),
    createOllamaAdapter(options.ollama),
  ];
}
