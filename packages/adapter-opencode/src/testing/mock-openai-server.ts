import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      let body: MockRequest['body'] = {};
      try {
        body = JSON.parse(raw) as MockRequest['body'];
      } catch {
        // Recorded as an empty body; the test will notice.
      }
      const title = JSON.stringify(body.messages ?? []).includes('title generator');
      requests.push({ path: req.url, title, body });
      const b = state.behaviour;
      if (b.kind === 'hang') return;
      if (b.kind === 'error') {
        res
          .writeHead(b.status, { 'content-type': 'application/json', ...b.headers })
          .end(JSON.stringify({ error: { message: b.message, type: b.type, ...(b.code ? { code: b.code } : {}) } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const base = {
        id: 'chatcmpl-mock',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'mock-model',
      };
      const chunks = title ? ['Mock title'] : b.chunks;
      chunks.forEach((content, i) => {
        const delta = i === 0 ? { role: 'assistant', content } : { content };
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      });
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: b.usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(next: MockBehaviour) {
      state.behaviour = next;
    },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
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
