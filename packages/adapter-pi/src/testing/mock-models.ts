/** The user's `models.json`: the mock as provider `mock` (OpenAI chat completions), `mock-model` taking images. */
export function mockModels(baseURL: string): string {
  return JSON.stringify({
    providers: {
      mock: {
        baseUrl: baseURL,
        api: 'openai-completions',
        apiKey: 'mock-key',
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: 'mock-model', input: ['text', 'image'] }],
      },
    },
  });
}
