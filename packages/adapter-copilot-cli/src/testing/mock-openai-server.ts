import type { IncomingHttpHeaders } from 'node:http';
import { startMockHttp } from '@toolbridge/test-suite/kit';

/** What the mock answers one chat completion with. */
export type ChatStep =
  | { kind: 'text'; chunks: string[] }
  | { kind: 'call'; calls: Array<{ name: string; args: Record<string, unknown> }> }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface MockRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface MockOpenAIServer {
  /** The server's origin (`http://127.0.0.1:PORT`), e.g. for `copilot login --host`. */
  url: string;
  /** For `COPILOT_PROVIDER_BASE_URL`. */
  baseURL: string;
  /** Steps for the next chat completions, in order; `fallback` once they are used up. */
  queue: ChatStep[];
  fallback: ChatStep;
  /** Device flow: how many token polls answer `authorization_pending` before the token is granted (Infinity: never). */
  pendingPolls: number;
  readonly requests: MockRequest[];
  chatRequests(): MockRequest[];
  close(): Promise<void>;
}

export const USAGE = {
  prompt_tokens: 20,
  completion_tokens: 7,
  total_tokens: 27,
  prompt_tokens_details: { cached_tokens: 5 },
  completion_tokens_details: { reasoning_tokens: 2 },
};
export const HELLO: ChatStep = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };
export const DEVICE_CODE = 'ABCD-1234';

/** Error bodies as OpenAI-style providers send them. */
export const API_ERRORS = {
  401: { error: { message: 'Incorrect API key provided: dummy.', type: 'invalid_request_error', code: 'invalid_api_key' } },
  429: { error: { message: 'Rate limit reached for requests. Please try again in 3s.', type: 'requests', code: 'rate_limit_exceeded' } },
  500: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } },
};

/**
 * An OpenAI-style provider for Copilot's bring-your-own-model mode on 127.0.0.1 (a handler on the
 * test kit's mock HTTP server: `POST /v1/chat/completions`, streamed as SSE), plus the few
 * github.com routes of the OAuth device flow `copilot login --host <url>` walks through. Every
 * request is recorded.
 */
export async function startMockOpenAIServer(fallback: ChatStep = HELLO): Promise<MockOpenAIServer> {
  const requests: MockRequest[] = [];
  let polls = 0;
  let origin = '';
  const mock = { queue: [] as ChatStep[], fallback, pendingPolls: Infinity };
  const server = await startMockHttp((x) => {
    const {
      method,
      url,
      headers,
      json: body,
      raw,
    } = x.request as { method: string; url: string; headers: IncomingHttpHeaders; json: any; raw: string };
    const json = x.json.bind(x);
    requests.push({ method, url, headers, body: body ?? (raw || undefined) });
    if (url.startsWith('/login/device/code')) {
      return json(200, {
        device_code: 'dev-123',
        user_code: DEVICE_CODE,
        verification_uri: `${origin}/login/device`,
        expires_in: 900,
        interval: 1,
      });
    }
    if (url.startsWith('/login/oauth/access_token')) {
      polls++;
      return json(
        200,
        polls <= mock.pendingPolls
          ? { error: 'authorization_pending' }
          : { access_token: 'gho_mock', token_type: 'bearer', scope: 'read:user' },
      );
    }
    if (url.startsWith('/copilot_internal/user') || /^\/(api\/v3\/)?user(\?|$)/.test(url)) {
      return json(200, { login: 'mock-user', id: 1, chat_enabled: true, endpoints: { api: origin, proxy: origin, telemetry: origin } });
    }
    if (!url.endsWith('/chat/completions')) return json(404, { message: 'Not Found' });
    const step = mock.queue.shift() ?? mock.fallback;
    if (step.kind === 'hang') return x.hang();
    if (step.kind === 'error') return json(step.status, step.body, step.headers);
    const base = {
      id: 'chatcmpl-mock',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body?.model ?? 'mock-model',
    };
    const out = x.sse();
    const send = (o: unknown) => out.data(o);
    if (step.kind === 'text') {
      step.chunks.forEach((content, i) =>
        send({ ...base, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null }] }),
      );
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: USAGE });
    } else {
      step.calls.forEach((c, i) =>
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  {
                    index: i,
                    id: `call_${i}_${requests.length}`,
                    type: 'function',
                    function: { name: c.name, arguments: JSON.stringify(c.args) },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        }),
      );
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: USAGE });
    }
    out.end('data: [DONE]\n\n');
  });
  origin = server.url;
  return Object.assign(mock, {
    url: origin,
    baseURL: `${origin}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.url.endsWith('/chat/completions')),
    close: () => server.close(),
  });
}
