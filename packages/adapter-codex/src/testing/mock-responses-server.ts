import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startMockHttp, type MockExchange, type MockRequest } from '@toolbridge/test-suite/kit';

/**
 * A minimal OpenAI Responses API (`POST /v1/responses`, SSE) that the real `codex` binary accepts
 * (see shared/cli-facts.md, "What a mock model server must answer"): text answers, reasoning,
 * tool calls (a `function_call` such as `exec_command`, a `custom_tool_call` such as
 * `apply_patch`), HTTP errors and hangs. Each request takes the next queued behaviour, else the
 * standing one; every request is recorded with its parsed JSON body.
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

/** One tool call in a response. */
export type MockCall =
  /** `namespace`: the tool group a name belongs to (Codex offers an MCP server's tools as namespace `mcp__<server>`). */
  | { type: 'function_call'; name: string; arguments: unknown; callId?: string; namespace?: string }
  | { type: 'custom_tool_call'; name: string; input: string; callId?: string };

export type MockBehaviour =
  | { kind: 'reply'; text: string; usage?: MockUsage; rateLimits?: MockRateLimits; reasoning?: string[] }
  /** Tool calls (Codex runs them and asks again with their outputs), optionally after some text. */
  | { kind: 'calls'; calls: MockCall[]; text?: string; usage?: MockUsage }
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

/** A request the mock received; `body` is its text, `json` the parsed body. */
export type RecordedRequest = MockRequest & { body: string };

export interface MockResponsesServer {
  /** `http://127.0.0.1:PORT/v1`: the provider's `base_url`. */
  readonly baseUrl: string;
  /** Every request, `/v1/responses` and others. */
  readonly requests: RecordedRequest[];
  /** The model requests only (`POST /v1/responses`), with their JSON bodies. */
  modelRequests(): ResponsesBody[];
  behaviour: MockBehaviour;
  /** Behaviours for the next requests, in order; the standing `behaviour` answers once they are used up. */
  queue(...behaviours: MockBehaviour[]): void;
  /** `-c` argv items that point `codex` at this server (provider `mock`, key from `MOCK_API_KEY`). */
  codexArgs(): string[];
  /** Write `$CODEX_HOME/config.toml` selecting this server as a custom provider (what a user would configure). */
  writeCodexConfig(codexHome: string, model?: string): Promise<void>;
  close(): Promise<void>;
}

/** The parts of a Responses request body the tests look at. */
export interface ResponsesBody {
  model: string;
  input: Array<
    { type?: string; role?: string; content?: Array<{ type: string; text?: string; image_url?: string }> } & Record<string, unknown>
  >;
  text?: { format?: { type: string; strict?: boolean; schema?: unknown; name?: string } };
  tools?: Array<{ type: string; name?: string }>;
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

function answer(x: MockExchange, b: Extract<MockBehaviour, { kind: 'reply' | 'calls' }>, n: number): void {
  const usage = b.usage ?? DEFAULT_USAGE;
  const out = x.sse(rateLimitHeaders(b.kind === 'reply' ? b.rateLimits : undefined));
  // Responses API events carry their own type in the data too.
  const sse = (event: string, data: object) => out.event(event, { type: event, ...data });
  const responseId = `resp_mock_${n}`;
  let index = 0;
  sse('response.created', { response: { id: responseId, status: 'in_progress' } });
  for (const [si, summary] of (b.kind === 'reply' ? (b.reasoning ?? []) : []).entries()) {
    const item = {
      type: 'reasoning',
      id: `rs_mock_${n}_${si}`,
      summary: [{ type: 'summary_text', text: summary }],
      encrypted_content: null,
    };
    const at = { item_id: item.id, output_index: index, summary_index: 0 };
    sse('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
    sse('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    sse('response.reasoning_summary_text.delta', { ...at, delta: summary });
    sse('response.reasoning_summary_text.done', { ...at, text: summary });
    sse('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: summary } });
    sse('response.output_item.done', { output_index: index++, item });
  }
  const text = b.text;
  if (text !== undefined) {
    const itemId = `msg_mock_${n}`;
    sse('response.output_item.added', {
      output_index: index,
      item: { type: 'message', role: 'assistant', id: itemId, status: 'in_progress', content: [] },
    });
    // Split the text in two so the real CLI sees a genuine streamed answer.
    const half = Math.ceil(text.length / 2);
    for (const delta of [text.slice(0, half), text.slice(half)]) {
      if (delta) sse('response.output_text.delta', { item_id: itemId, output_index: index, content_index: 0, delta });
    }
    const content = [{ type: 'output_text', text, annotations: [] }];
    sse('response.output_item.done', {
      output_index: index++,
      item: { type: 'message', role: 'assistant', id: itemId, status: 'completed', content },
    });
  }
  for (const call of b.kind === 'calls' ? b.calls : []) {
    const callId = call.callId ?? `call_mock_${n}_${index}`;
    const item =
      call.type === 'custom_tool_call'
        ? { type: 'custom_tool_call', id: `ctc_mock_${n}_${index}`, call_id: callId, name: call.name, input: call.input }
        : {
            type: 'function_call',
            id: `fc_mock_${n}_${index}`,
            call_id: callId,
            name: call.name,
            ...(call.namespace ? { namespace: call.namespace } : {}),
            arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          };
    sse('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
    sse('response.output_item.done', { output_index: index++, item: { ...item, status: 'completed' } });
  }
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
  const state = { behaviour: initial, queued: [] as MockBehaviour[] };
  const isModelRequest = (r: MockRequest) => r.method === 'POST' && r.path.startsWith('/v1/responses');
  const http = await startMockHttp(
    (x) => {
      // Tests read the body as text.
      (x.request as RecordedRequest).body = x.request.raw;
      if (!isModelRequest(x.request)) return x.json(404, { error: { message: 'not found' } });
      const b = state.queued.shift() ?? state.behaviour;
      count += 1;
      if (b.kind === 'hang') return x.hang();
      if (b.kind === 'status') return x.json(b.status, b.body, b.headers);
      answer(x, b, count);
    },
    // Codex first tries a WebSocket upgrade; refusing it makes it fall back to HTTP SSE.
    { refuseUpgrades: true },
  );
  const baseUrl = `${http.url}/v1`;
  const requests = http.requests as RecordedRequest[];
  const provider = `name="mock",base_url="${baseUrl}",env_key="MOCK_API_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0`;

  return {
    baseUrl,
    requests,
    modelRequests: () => requests.filter(isModelRequest).map((r) => r.json as ResponsesBody),
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(b: MockBehaviour) {
      state.behaviour = b;
    },
    queue: (...behaviours) => void state.queued.push(...behaviours),
    // No retries: a mock error must fail the run at once, not after minutes of backoff.
    codexArgs: () => ['-c', 'model_provider=mock', '-c', `model_providers.mock={${provider}}`],
    async writeCodexConfig(codexHome, model = 'mock-model') {
      await mkdir(codexHome, { recursive: true });
      // The retry settings count only inside the provider table (at top level Codex ignores them).
      const toml = [`model_provider = "mock"`, `model = "${model}"`, '', '[model_providers.mock]', ...provider.split(','), ''];
      await writeFile(path.join(codexHome, 'config.toml'), toml.join('\n'));
    },
    close: () => http.close(),
  };
}
