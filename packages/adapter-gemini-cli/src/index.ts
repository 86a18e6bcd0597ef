export { createGeminiCliAdapter } from './adapter.js';
export type { GeminiCliAdapterOptions } from './options.js';
export type { GeminiApprovalMode } from './config.js';
