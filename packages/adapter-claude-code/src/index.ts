// Placeholder until the adapter's issue lands: the factory name and options type are fixed.
import type { ToolAdapter } from '@toolbridge/core';
export interface ClaudeCodeAdapterOptions {}
export function createClaudeCodeAdapter(options: ClaudeCodeAdapterOptions = {}): ToolAdapter {
  void options;
  throw new Error('createClaudeCodeAdapter: not implemented yet');
}
