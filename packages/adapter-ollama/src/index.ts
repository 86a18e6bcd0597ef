export { createOllamaAdapter, type OllamaAdapterOptions } from './adapter.js';
export { DEFAULT_OLLAMA_URL, normalizeOllamaHost, resolveBaseUrl } from './host.js';
