export { createClaudeCodeAdapter } from './adapter.js';
export type { ClaudeCodeAdapterOptions } from './options.js';
export type { ClaudeCodeToolAccess } from './config.js';
