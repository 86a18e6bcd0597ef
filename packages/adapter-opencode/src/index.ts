export { createOpenCodeAdapter } from './adapter.js';
export type { OpenCodeAdapterOptions } from './options.js';
