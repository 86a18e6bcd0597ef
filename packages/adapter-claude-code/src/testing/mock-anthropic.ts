import { startMockHttp, type MockExchange, type MockRequest, type SseOut } from '@toolbridge/test-suite/kit';

/** One unified rate-limit window as the Anthropic API reports it in response headers. */
export interface MockWindow {
  /** 0..1 */
  utilization: number;
  /** Epoch seconds. */
  reset: number;
  status?: 'allowed' | 'allowed_warning' | 'rejected';
}

/** A content block the mock model answers with. */
export type MockBlock =
  | { type: 'text'; text: string; pieces?: string[] }
  | { type: 'tool_use'; id?: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string };

/** One answer of a scripted mock: content blocks, an API error, or none at all. */
export interface MockReply {
  blocks?: MockBlock[];
  error?: { status: number; type?: string };
  hang?: boolean;
  /** Wait this long between streamed pieces. */
  pieceDelayMs?: number;
}

/** The JSON body of a Messages API request. */
export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: Array<{ type: string; text: string }> | string;
  messages?: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name?: string; type?: string; input_schema?: unknown }>;
}

export interface MockBehavior {
  /** `ok` answers with SSE text; `error` answers `status` with an API error body; `hang` never answers; `script` asks `script`. */
  mode: 'ok' | 'error' | 'hang' | 'script';
  text?: string;
  model?: string;
  status?: number;
  errorType?: string;
  /** Unified rate-limit headers (seen by Claude Code only with an OAuth login). */
  unified?: { fiveHour?: MockWindow; sevenDay?: MockWindow; status?: string };
  /** `script` mode: the answer to each Messages request (`index` counts them from 0). */
  script?: (body: MessagesBody, index: number) => MockReply;
}

/** A request the mock received; `body` is its JSON (or its text when it is not JSON). */
export type RecordedRequest = MockRequest & { body: unknown };

export interface MockAnthropicServer {
  url: string;
  requests: RecordedRequest[];
  /** The Messages API requests (what the model was sent), in order. */
  messageRequests(): Array<RecordedRequest & { body: MessagesBody }>;
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

/** Stream one content block as the API does: start, deltas, stop. */
async function streamBlock(out: SseOut, x: MockExchange, index: number, b: MockBlock, delayMs: number): Promise<void> {
  const delta = (d: unknown) => out.event('content_block_delta', { type: 'content_block_delta', index, delta: d });
  if (b.type === 'text') {
    out.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    // Two pieces by default so streaming consumers see more than one delta.
    const cut = Math.ceil(b.text.length / 2);
    for (const piece of b.pieces ?? [b.text.slice(0, cut), b.text.slice(cut)]) {
      if (!piece) continue;
      delta({ type: 'text_delta', text: piece });
      if (delayMs) await x.sleep(delayMs);
    }
  } else if (b.type === 'thinking') {
    out.event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    delta({ type: 'thinking_delta', thinking: b.thinking });
    delta({ type: 'signature_delta', signature: 'c2lnLW1vY2s=' });
  } else {
    const id = b.id ?? `toolu_mock_${index}_${Date.now().toString(36)}`;
    out.event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id, name: b.name, input: {} },
    });
    const json = JSON.stringify(b.input ?? {});
    const cut = Math.ceil(json.length / 2);
    delta({ type: 'input_json_delta', partial_json: json.slice(0, cut) });
    delta({ type: 'input_json_delta', partial_json: json.slice(cut) });
  }
  out.event('content_block_stop', { type: 'content_block_stop', index });
}

/**
 * A small Anthropic Messages API on 127.0.0.1 that the real `claude` binary accepts (HEAD
 * /api/hello, POST /v1/messages with SSE or not, POST /v1/messages/count_tokens), recording every
 * request. `script` mode plays text, thinking and tool calls (see `mock-scripts.ts`).
 */
export async function startMockAnthropic(initial: MockBehavior = { mode: 'ok' }): Promise<MockAnthropicServer> {
  let seq = 0;
  let index = 0;
  const state = { behavior: initial };

  async function handle(x: MockExchange): Promise<void> {
    const { request } = x;
    const body = ((request as RecordedRequest).body ?? {}) as MessagesBody;
    const path = request.path;
    const b = state.behavior;
    if (request.method === 'HEAD' || path === '/api/hello') return void x.res.writeHead(200).end();
    if (path === '/v1/messages/count_tokens') return x.json(200, { input_tokens: 21 });
    if (path !== '/v1/messages') return x.json(404, { type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } });
    const rl = b.unified ? unifiedHeaders(b.unified) : {};
    const reply: MockReply =
      b.mode === 'script' && b.script
        ? b.script(body, index++)
        : b.mode === 'hang'
          ? { hang: true }
          : b.mode === 'error'
            ? { error: { status: b.status ?? 500, type: b.errorType } }
            : { blocks: [{ type: 'text', text: b.text ?? 'Hello from mock' }] };
    if (reply.hang) return x.hang();
    if (reply.error) {
      const status = reply.error.status;
      const type = reply.error.type ?? errorTypes[status] ?? 'api_error';
      return x.json(status, { type: 'error', error: { type, message: `mock ${type}` } }, { 'request-id': `req_mock_err_${++seq}`, ...rl });
    }
    const blocks = reply.blocks ?? [];
    const model = b.model ?? (typeof body.model === 'string' ? body.model : 'claude-mock-1');
    const id = `msg_mock_${++seq}`;
    const usage = { input_tokens: 21, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const stop = blocks.some((bl) => bl.type === 'tool_use') ? 'tool_use' : 'end_turn';
    if (body.stream !== true) {
      const content = blocks.map((bl) => (bl.type === 'text' ? { type: 'text', text: bl.text } : bl));
      return x.json(
        200,
        {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stop,
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
    for (const [i, block] of blocks.entries()) await streamBlock(out, x, i, block, reply.pieceDelayMs ?? 0);
    out.event('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
    out.event('message_stop', { type: 'message_stop' });
    out.end();
  }

  const http = await startMockHttp((x) => {
    (x.request as RecordedRequest).body = x.request.json ?? (x.request.raw || undefined);
    return handle(x);
  });
  return {
    url: http.url,
    requests: http.requests as RecordedRequest[],
    messageRequests: () =>
      (http.requests as RecordedRequest[]).filter((r) => r.method === 'POST' && r.path === '/v1/messages') as Array<
        RecordedRequest & { body: MessagesBody }
      >,
    get behavior() {
      return state.behavior;
    },
    set behavior(b: MockBehavior) {
      state.behavior = b;
    },
    close: () => http.close(),
  };
}
