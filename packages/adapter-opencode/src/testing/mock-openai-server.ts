export {
  startMockOpenAIServer,
  MOCK_OK,
  type MockBehaviour,
  type MockOpenAIServer,
  type MockChatRequest as MockRequest,
  type MockStep,
} from '@toolbridge/test-suite/kit';

/**
 * `OPENCODE_CONFIG_CONTENT` declaring the mock as provider `mock` with models `mock-model` (text
 * only) and `mock-vision` (takes images: OpenCode reads `modalities` to decide).
 */
export function mockProviderConfig(baseURL: string): string {
  return JSON.stringify({
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL, apiKey: 'dummy' },
        models: {
          'mock-model': { name: 'Mock Model' },
          'mock-vision': { name: 'Mock Vision', modalities: { input: ['text', 'image'], output: ['text'] }, attachment: true },
        },
      },
    },
  });
}
