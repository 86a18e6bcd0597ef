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
  /** The premium-request allowance `copilot_internal/user` reports (GitHub mode); none: the mock's user has no quota snapshots. */
  premium?: PremiumQuota;
  readonly requests: MockRequest[];
  chatRequests(): MockRequest[];
  close(): Promise<void>;
}

/** A `quota_snapshots.premium_interactions` entry as GitHub reports it (Copilot 1.0.102's schema). */
export interface PremiumQuota {
  entitlement: number;
  remaining: number;
  percent_remaining: number;
  /** Epoch seconds. */
  quota_reset_at: number;
  overage_permitted?: boolean;
  unlimited?: boolean;
}

/** The one model GitHub mode offers (`GET /models`, the Copilot API's shape): Copilot will not chat without a list. */
const GITHUB_MODELS = {
  data: [
    {
      id: 'gpt-5.4',
      name: 'GPT 5.4',
      object: 'model',
      vendor: 'OpenAI',
      version: 'gpt-5.4',
      preview: false,
      model_picker_enabled: true,
      is_chat_default: true,
      is_chat_fallback: true,
      capabilities: {
        type: 'chat',
        family: 'gpt-5.4',
        object: 'model_capabilities',
        tokenizer: 'o200k_base',
        limits: { max_prompt_tokens: 100_000, max_output_tokens: 16_000, max_context_window_tokens: 128_000 },
        supports: { streaming: true, tool_calls: true, parallel_tool_calls: true },
      },
      policy: { state: 'enabled', terms: '' },
      billing: { is_premium: true, multiplier: 1 },
      supported_endpoints: ['/chat/completions'],
    },
  ],
};

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
  const mock = { queue: [] as ChatStep[], fallback, pendingPolls: Infinity, premium: undefined as PremiumQuota | undefined };
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
      const premium = mock.premium;
      const quota = premium && {
        copilot_plan: 'individual_pro',
        quota_reset_date_utc: new Date(premium.quota_reset_at * 1000).toISOString(),
        quota_snapshots: {
          premium_interactions: {
            overage_count: 0,
            overage_permitted: false,
            unlimited: false,
            quota_id: 'premium_interactions',
            has_quota: premium.percent_remaining > 0,
            timestamp_utc: new Date().toISOString(),
            ...premium,
          },
        },
      };
      const endpoints = { api: origin, proxy: origin, telemetry: origin };
      return json(200, { login: 'mock-user', id: 1, chat_enabled: true, endpoints, ...quota });
    }
    if (url === '/models') return json(200, GITHUB_MODELS);
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
