import { startMockHttp, type MockExchange, type MockRequest } from '@toolbridge/test-suite';

/** One unified rate-limit window as the Anthropic API reports it in response headers. */
export interface MockWindow {
  /** 0..1 */
  utilization: number;
  /** Epoch seconds. */
  reset: number;
  status?: 'allowed' | 'allowed_warning' | 'rejected';
}

export interface MockBehavior {
  /** `ok` answers with SSE text; `error` answers `status` with an API error body; `hang` never answers. */
  mode: 'ok' | 'error' | 'hang';
  text?: string;
  model?: string;
  status?: number;
  errorType?: string;
  /** Unified rate-limit headers (seen by Claude Code only with an OAuth login). */
  unified?: { fiveHour?: MockWindow; sevenDay?: MockWindow; status?: string };
}

/** A request the mock received; `body` is its JSON (or its text when it is not JSON). */
export type RecordedRequest = MockRequest & { body: unknown };

export interface MockAnthropicServer {
  url: string;
  requests: RecordedRequest[];
  behavior: MockBehavior;
  close(): Promise<void>;
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function unifiedHeaders(u: NonNullable<MockBehavior['unified']>): Record<string, string> {
  const h: Record<string, string> = {};
  const five = u.fiveHour;
  const seven = u.sevenDay;
  const first = five ?? seven;
  if (!first) return h;
  h['anthropic-ratelimit-unified-status'] = u.status ?? first.status ?? 'allowed';
  h['anthropic-ratelimit-unified-reset'] = String(first.reset);
  h['anthropic-ratelimit-unified-representative-claim'] = five ? 'five_hour' : 'seven_day';
  for (const [prefix, w] of [
    ['5h', five],
    ['7d', seven],
  ] as const) {
    if (!w) continue;
    h[`anthropic-ratelimit-unified-${prefix}-status`] = w.status ?? 'allowed';
    h[`anthropic-ratelimit-unified-${prefix}-utilization`] = String(w.utilization);
    h[`anthropic-ratelimit-unified-${prefix}-reset`] = String(w.reset);
  }
  return h;
}

/**
 * A small Anthropic Messages API on 127.0.0.1 that the real `claude` binary
 * accepts (HEAD /api/hello, POST /v1/messages SSE, POST /v1/messages/count_tokens).
 */
export async function startMockAnthropic(initial: MockBehavior = { mode: 'ok' }): Promise<MockAnthropicServer> {
  let seq = 0;
  const state = { behavior: initial };

  function handle(x: MockExchange): void {
    const { request } = x;
    const body = (request as RecordedRequest).body as Record<string, unknown> | undefined;
    const path = request.path;
    const b = state.behavior;
    if (request.method === 'HEAD' || path === '/api/hello') return void x.res.writeHead(200).end();
    if (path === '/v1/messages/count_tokens') return x.json(200, { input_tokens: 21 });
    if (path !== '/v1/messages') return x.json(404, { type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } });
    const rl = b.unified ? unifiedHeaders(b.unified) : {};
    if (b.mode === 'hang') return x.hang();
    if (b.mode === 'error') {
      const status = b.status ?? 500;
      const type = b.errorType ?? errorTypes[status] ?? 'api_error';
      return x.json(status, { type: 'error', error: { type, message: `mock ${type}` } }, { 'request-id': `req_mock_err_${++seq}`, ...rl });
    }
    const text = b.text ?? 'Hello from mock';
    const model = b.model ?? (typeof body?.model === 'string' ? body.model : 'claude-mock-1');
    const id = `msg_mock_${++seq}`;
    const usage = { input_tokens: 21, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (body?.stream !== true) {
      return x.json(
        200,
        {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { ...usage, output_tokens: 5 },
        },
        { 'request-id': `req_mock_${seq}`, ...rl },
      );
    }
    const out = x.sse({ 'request-id': `req_mock_${seq}`, ...rl });
    out.event('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
    out.event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    // Two deltas so streaming consumers see more than one piece.
    const cut = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, cut), text.slice(cut)]) {
      if (piece) out.event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    }
    out.event('content_block_stop', { type: 'content_block_stop', index: 0 });
    out.event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    });
    out.event('message_stop', { type: 'message_stop' });
    out.end();
  }

  const http = await startMockHttp((x) => {
    (x.request as RecordedRequest).body = x.request.json ?? (x.request.raw || undefined);
    handle(x);
  });
  return {
    url: http.url,
    requests: http.requests as RecordedRequest[],
    get behavior() {
      return state.behavior;
    },
    set behavior(b: MockBehavior) {
      state.behavior = b;
    },
    close: () => http.close(),
  };
}
