export { createQwenCodeAdapter } from './adapter.js';
export type { QwenCodeAdapterOptions } from './options.js';
