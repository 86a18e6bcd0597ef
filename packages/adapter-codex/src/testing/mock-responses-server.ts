import { startMockHttp, type MockExchange, type MockRequest } from '@toolbridge/test-suite';

/**
 * A minimal OpenAI Responses API (`POST /v1/responses`, SSE) that the real
 * `codex` binary accepts (see shared/cli-facts.md, "What a mock model server
 * must answer"). Tests switch its behaviour between requests.
 */

export interface MockUsage {
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
}

/** Rate-limit headers Codex copies into its session log's `rate_limits`. */
export interface MockRateLimits {
  primary?: { usedPercent: number; windowMinutes: number; resetAt: number };
  secondary?: { usedPercent: number; windowMinutes: number; resetAt: number };
  planType?: string;
}

export type MockBehaviour =
  | { kind: 'reply'; text: string; usage?: MockUsage; rateLimits?: MockRateLimits }
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

/** A request the mock received; `body` is its text. */
export type RecordedRequest = MockRequest & { body: string };

export interface MockResponsesServer {
  /** `http://127.0.0.1:PORT/v1`: the provider's `base_url`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  behaviour: MockBehaviour;
  /** `-c` argv items that point `codex` at this server (provider `mock`, key from `MOCK_API_KEY`). */
  codexArgs(): string[];
  close(): Promise<void>;
}

const DEFAULT_USAGE: MockUsage = { input_tokens: 1234, cached_tokens: 1000, output_tokens: 56, reasoning_tokens: 7 };

function rateLimitHeaders(limits: MockRateLimits | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (!limits) return h;
  for (const which of ['primary', 'secondary'] as const) {
    const w = limits[which];
    if (!w) continue;
    h[`x-codex-${which}-used-percent`] = String(w.usedPercent);
    h[`x-codex-${which}-window-minutes`] = String(w.windowMinutes);
    h[`x-codex-${which}-reset-at`] = String(w.resetAt);
  }
  if (limits.planType) h['x-codex-plan-type'] = limits.planType;
  return h;
}

function reply(x: MockExchange, b: Extract<MockBehaviour, { kind: 'reply' }>, n: number): void {
  const usage = b.usage ?? DEFAULT_USAGE;
  const out = x.sse(rateLimitHeaders(b.rateLimits));
  // Responses API events carry their own type in the data too.
  const sse = (event: string, data: object) => out.event(event, { type: event, ...data });
  const responseId = `resp_mock_${n}`;
  const itemId = `msg_mock_${n}`;
  sse('response.created', { response: { id: responseId, status: 'in_progress' } });
  sse('response.output_item.added', {
    output_index: 0,
    item: { type: 'message', role: 'assistant', id: itemId, status: 'in_progress', content: [] },
  });
  // Split the text in two so the real CLI sees a genuine streamed answer.
  const half = Math.ceil(b.text.length / 2);
  for (const delta of [b.text.slice(0, half), b.text.slice(half)]) {
    if (delta) sse('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta });
  }
  sse('response.output_item.done', {
    output_index: 0,
    item: {
      type: 'message',
      role: 'assistant',
      id: itemId,
      status: 'completed',
      content: [{ type: 'output_text', text: b.text, annotations: [] }],
    },
  });
  sse('response.completed', {
    response: {
      id: responseId,
      status: 'completed',
      usage: {
        input_tokens: usage.input_tokens,
        input_tokens_details: { cached_tokens: usage.cached_tokens },
        output_tokens: usage.output_tokens,
        output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
        total_tokens: usage.input_tokens + usage.output_tokens,
      },
    },
  });
  out.end();
}

export async function startMockResponsesServer(
  initial: MockBehaviour = { kind: 'reply', text: 'Hello from mock' },
): Promise<MockResponsesServer> {
  let count = 0;
  const state = { behaviour: initial };
  const http = await startMockHttp(
    (x) => {
      // Tests read the body as text.
      (x.request as RecordedRequest).body = x.request.raw;
      if (x.request.method !== 'POST' || !x.request.url.startsWith('/v1/responses'))
        return x.json(404, { error: { message: 'not found' } });
      const b = state.behaviour;
      count += 1;
      if (b.kind === 'hang') return x.hang();
      if (b.kind === 'status') return x.json(b.status, b.body, b.headers);
      reply(x, b, count);
    },
    // Codex first tries a WebSocket upgrade; refusing it makes it fall back to HTTP SSE.
    { refuseUpgrades: true },
  );
  const baseUrl = `${http.url}/v1`;
  const requests = http.requests as RecordedRequest[];

  return {
    baseUrl,
    requests,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(b: MockBehaviour) {
      state.behaviour = b;
    },
    codexArgs() {
      return [
        '-c',
        'model_provider=mock',
        '-c',
        // No retries: a mock error must fail the run at once, not after minutes of backoff.
        `model_providers.mock={name="mock",base_url="${baseUrl}",env_key="MOCK_API_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
      ];
    },
    close: () => http.close(),
  };
}
