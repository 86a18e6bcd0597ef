import { startMockHttp } from '@toolbridge/test-suite';

/** How the mock answers `POST /v1/chat/completions`. */
export type MockBehaviour =
  | { kind: 'ok'; chunks: string[]; usage: Record<string, unknown> }
  | { kind: 'error'; status: number; message: string; type: string; code?: string; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface MockRequest {
  path: string;
  /** OpenCode asks for a session title first; those requests are marked. */
  title: boolean;
  body: { model?: string; stream?: boolean; messages?: Array<{ role: string; content: unknown }> };
}

export interface MockOpenAIServer {
  /** Base URL for an OpenAI-compatible provider (`http://127.0.0.1:PORT/v1`). */
  baseURL: string;
  behaviour: MockBehaviour;
  readonly requests: MockRequest[];
  close(): Promise<void>;
}

export const MOCK_OK: MockBehaviour = {
  kind: 'ok',
  chunks: ['Hello ', 'from ', 'mock'],
  usage: {
    prompt_tokens: 20,
    completion_tokens: 7,
    total_tokens: 27,
    prompt_tokens_details: { cached_tokens: 5 },
    completion_tokens_details: { reasoning_tokens: 2 },
  },
};

/**
 * A minimal OpenAI-compatible chat completions server (SSE streaming) on
 * 127.0.0.1, enough for the real `opencode run` (see shared/cli-facts.md).
 */
export async function startMockOpenAIServer(behaviour: MockBehaviour = MOCK_OK): Promise<MockOpenAIServer> {
  const requests: MockRequest[] = [];
  const state = { behaviour };
  const http = await startMockHttp((x) => {
    if (x.request.method !== 'POST' || !x.request.path.endsWith('/chat/completions')) {
      return x.json(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    // An unparsable body is recorded as empty; the test will notice.
    const body = (x.request.json ?? {}) as MockRequest['body'];
    const title = JSON.stringify(body.messages ?? []).includes('title generator');
    requests.push({ path: x.request.url, title, body });
    const b = state.behaviour;
    if (b.kind === 'hang') return x.hang();
    if (b.kind === 'error')
      return x.json(b.status, { error: { message: b.message, type: b.type, ...(b.code ? { code: b.code } : {}) } }, b.headers);
    const out = x.sse();
    const base = {
      id: 'chatcmpl-mock',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'mock-model',
    };
    const chunks = title ? ['Mock title'] : b.chunks;
    chunks.forEach((content, i) => {
      const delta = i === 0 ? { role: 'assistant', content } : { content };
      out.data({ ...base, choices: [{ index: 0, delta, finish_reason: null }] });
    });
    out.data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: b.usage });
    out.end('data: [DONE]\n\n');
  });
  return {
    baseURL: `${http.url}/v1`,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(next: MockBehaviour) {
      state.behaviour = next;
    },
    requests,
    close: () => http.close(),
  };
}

/** `OPENCODE_CONFIG_CONTENT` declaring the mock as provider `mock` with model `mock-model`. */
export function mockProviderConfig(baseURL: string): string {
  return JSON.stringify({
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL, apiKey: 'dummy' },
        models: { 'mock-model': { name: 'Mock Model' } },
      },
    },
  });
}
