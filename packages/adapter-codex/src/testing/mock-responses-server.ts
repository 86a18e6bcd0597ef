import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

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

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
}

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

function reply(res: ServerResponse, b: Extract<MockBehaviour, { kind: 'reply' }>, n: number): void {
  const usage = b.usage ?? DEFAULT_USAGE;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...rateLimitHeaders(b.rateLimits) });
  const responseId = `resp_mock_${n}`;
  const itemId = `msg_mock_${n}`;
  sse(res, 'response.created', { response: { id: responseId, status: 'in_progress' } });
  sse(res, 'response.output_item.added', {
    output_index: 0,
    item: { type: 'message', role: 'assistant', id: itemId, status: 'in_progress', content: [] },
  });
  // Split the text in two so the real CLI sees a genuine streamed answer.
  const half = Math.ceil(b.text.length / 2);
  for (const delta of [b.text.slice(0, half), b.text.slice(half)]) {
    if (delta) sse(res, 'response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta });
  }
  sse(res, 'response.output_item.done', {
    output_index: 0,
    item: {
      type: 'message',
      role: 'assistant',
      id: itemId,
      status: 'completed',
      content: [{ type: 'output_text', text: b.text, annotations: [] }],
    },
  });
  sse(res, 'response.completed', {
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
  res.end();
}

export async function startMockResponsesServer(
  initial: MockBehaviour = { kind: 'reply', text: 'Hello from mock' },
): Promise<MockResponsesServer> {
  const requests: RecordedRequest[] = [];
  let count = 0;
  const state = { behaviour: initial };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const b = state.behaviour;
      count += 1;
      if (b.kind === 'hang') return;
      if (b.kind === 'status') {
        res.writeHead(b.status, { 'content-type': 'application/json', ...b.headers });
        res.end(JSON.stringify(b.body));
        return;
      }
      reply(res, b, count);
    });
  });
  // Codex first tries a WebSocket upgrade; refusing it makes it fall back to HTTP SSE.
  server.on('upgrade', (_req, socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1`;

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
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
