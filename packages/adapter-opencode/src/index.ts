// Placeholder until the adapter's issue lands: the factory name and options type are fixed.
import type { ToolAdapter } from '@toolbridge/core';
export interface OpenCodeAdapterOptions {}
export function createOpenCodeAdapter(options: OpenCodeAdapterOptions = {}): ToolAdapter {
  void options;
  throw new Error('createOpenCodeAdapter: not implemented yet');
}
