// Placeholder until the adapter's issue lands: the factory name and options type are fixed.
import type { ToolAdapter } from '@toolbridge/core';
export interface CodexAdapterOptions {}
export function createCodexAdapter(options: CodexAdapterOptions = {}): ToolAdapter {
  void options;
  throw new Error('createCodexAdapter: not implemented yet');
}
