export { createCodexAdapter } from './adapter.js';
export type { CodexAdapterOptions } from './options.js';
export type { CodexSandboxMode } from './config.js';
