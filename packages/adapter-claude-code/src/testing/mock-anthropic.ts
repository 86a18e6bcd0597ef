import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

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

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * A small Anthropic Messages API on 127.0.0.1 that the real `claude` binary
 * accepts (HEAD /api/hello, POST /v1/messages SSE, POST /v1/messages/count_tokens).
 */
export async function startMockAnthropic(initial: MockBehavior = { mode: 'ok' }): Promise<MockAnthropicServer> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  let seq = 0;
  const state: MockAnthropicServer = {
    url: '',
    requests,
    behavior: initial,
    close: async () => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // keep the raw text
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body as Record<string, unknown> | undefined);
    });
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | undefined): void {
    const path = (req.url ?? '').split('?')[0];
    const b = state.behavior;
    if (req.method === 'HEAD' || path === '/api/hello') {
      res.writeHead(200).end();
      return;
    }
    if (path === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 21 }));
      return;
    }
    if (path !== '/v1/messages') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } }));
      return;
    }
    const rl = b.unified ? unifiedHeaders(b.unified) : {};
    if (b.mode === 'hang') {
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    if (b.mode === 'error') {
      const status = b.status ?? 500;
      const type = b.errorType ?? errorTypes[status] ?? 'api_error';
      res
        .writeHead(status, { 'content-type': 'application/json', 'request-id': `req_mock_err_${++seq}`, ...rl })
        .end(JSON.stringify({ type: 'error', error: { type, message: `mock ${type}` } }));
      return;
    }
    const text = b.text ?? 'Hello from mock';
    const model = b.model ?? (typeof body?.model === 'string' ? body.model : 'claude-mock-1');
    const id = `msg_mock_${++seq}`;
    const usage = { input_tokens: 21, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (body?.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_mock_${seq}`, ...rl }).end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { ...usage, output_tokens: 5 },
        }),
      );
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'request-id': `req_mock_${seq}`,
      ...rl,
    });
    sse(res, 'message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    // Two deltas so streaming consumers see more than one piece.
    const cut = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, cut), text.slice(cut)]) {
      if (piece) sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sse(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
