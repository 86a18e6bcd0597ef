export { createOllamaAdapter } from './adapter.js';
export type { OllamaAdapterOptions } from './options.js';
export { ollamaConfig } from './config.js';
export { DEFAULT_OLLAMA_URL, normalizeOllamaHost, resolveBaseUrl } from './host.js';
