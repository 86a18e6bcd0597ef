import { afterAll, describe, it } from '@jest/globals';
import { describeConformance } from '@toolbridge/test-suite';
import { createOllamaAdapter } from './adapter.js';
import { closedPort, startFakeOllama } from './testing/fake-ollama.js';

const reply = 'Hello! How can I help you today?';
const expectedJson = { greeting: 'hello', count: 2 };

describeConformance({ describe, it, afterAll }, 'ollama', {
  expectedText: reply,
  expectedJson,
  // Ollama has no login. `activity` is a thinking model's reasoning.
  scenarios: ['ok', 'missing', 'hang', 'stall', 'rate-limited', 'json', 'activity'],
  async setup(scenario) {
    // The host comes from OLLAMA_HOST in `host:port` form, as users set it.
    if (scenario === 'missing') {
      return { adapter: createOllamaAdapter({ probeTimeoutMs: 1000 }), env: { OLLAMA_HOST: `127.0.0.1:${await closedPort()}` } };
    }
    const fake = await startFakeOllama({
      // The default model sees images (gemma3 lists `vision`), so the images group sends one.
      models: ['gemma3:4b', 'qwen3:14b'],
      reply: scenario === 'json' ? JSON.stringify(expectedJson) : reply,
      thinking: scenario === 'activity' ? 'The user greets me; I greet them back. ' : '',
    });
    if (scenario === 'hang') {
      for (const route of ['/api/version', '/api/tags', '/api/show', '/api/chat', '/api/generate'] as const)
        fake.set(route, { kind: 'hang' });
    }
    if (scenario === 'stall') fake.set('/api/chat', { kind: 'stall', afterChunks: 2 });
    if (scenario === 'rate-limited') {
      fake.set('/api/chat', { kind: 'status', status: 429, error: 'too many requests', headers: { 'Retry-After': '2' } });
    }
    return {
      adapter: createOllamaAdapter({ probeTimeoutMs: 1000 }),
      env: { OLLAMA_HOST: fake.url.replace(/^http:\/\//, '') },
      // A named model makes the hanging call the chat itself, not the model lookup.
      ...(scenario === 'hang' ? { config: { ollamaModel: 'qwen3:14b' } } : {}),
      cleanup: () => fake.close(),
    };
  },
});
