// Placeholder until the adapter's issue lands: the factory name and options type are fixed.
import type { ToolAdapter } from '@toolbridge/core';
export interface OllamaAdapterOptions {}
export function createOllamaAdapter(options: OllamaAdapterOptions = {}): ToolAdapter {
  void options;
  throw new Error('createOllamaAdapter: not implemented yet');
}
