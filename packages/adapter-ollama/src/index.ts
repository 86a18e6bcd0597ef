export { createOllamaAdapter } from './adapter.js';
export type { OllamaAdapterOptions } from './options.js';
export { normalizeOllamaHost, resolveBaseUrl } from './host.js';
