import { adapterConfig } from '@toolbridge/adapter-kit';
import { normalizeOllamaHost } from './host.js';

export const TOOL_ID = 'ollama';

/** The config keys Ollama owns: `ollamaHost` (env `OLLAMA_HOST` as Ollama reads it), `ollamaModel`. */
export const ollamaConfig = adapterConfig(TOOL_ID, {
  host: {
    type: 'string',
    format: 'http-url',
    description: 'Base URL of the Ollama server (default http://127.0.0.1:11434)',
    env: ['TOOLBRIDGE_OLLAMA_HOST', 'OLLAMA_HOST'],
    fromEnv: normalizeOllamaHost,
  },
  model: { type: 'string', minLength: 1, description: 'Model to use when a request names none (default: the first installed model)' },
});
