import { startMockHttp, type MockRequest } from '@toolbridge/test-suite/kit';

/** What the mock answers one (non-memory) chat completion with. */
export type QwenMockStep =
  | { kind: 'text'; chunks: string[] }
  | { kind: 'call'; name: string; args: Record<string, unknown> }
  | { kind: 'error'; status: number; message: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Sends the first chunk, then nothing. */
  | { kind: 'stall'; chunk: string };

export const HELLO: QwenMockStep = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };
export const MOCK_USAGE = {
  prompt_tokens: 20,
  completion_tokens: 7,
  total_tokens: 27,
  prompt_tokens_details: { cached_tokens: 5 },
};

export interface QwenMockRequest extends MockRequest {
  /** Qwen Code's background memory extraction (a second request after the answer), answered apart. */
  memory: boolean;
}

export interface MockQwenServer {
  /** For `OPENAI_BASE_URL` (`http://127.0.0.1:PORT/v1`). */
  baseURL: string;
  /** Steps for the next (non-memory) completions, in order; `fallback` once they are used up. */
  queue: QwenMockStep[];
  fallback: QwenMockStep;
  /** Every chat completion request, memory extraction included. */
  readonly requests: QwenMockRequest[];
  /** The requests that carry a turn (not memory extraction). */
  turns(): QwenMockRequest[];
  close(): Promise<void>;
}

const isMemory = (body: unknown) => JSON.stringify((body as { messages?: unknown })?.messages ?? '').includes('memory extraction subagent');

/**
 * An OpenAI chat completions server (SSE) on 127.0.0.1 for the real `qwen` (with
 * `OPENAI_BASE_URL`/`OPENAI_API_KEY` and the `openai` sign-in). Qwen Code 0.24.4 follows most
 * answers with a background "managed memory extraction" request: it is recorded, marked, and
 * answered with plain text (no file changes), never taking a scripted step.
 */
export async function startMockQwenServer(): Promise<MockQwenServer> {
  const requests: QwenMockRequest[] = [];
  const state = { queue: [] as QwenMockStep[], fallback: HELLO };
  const http = await startMockHttp(async (x) => {
    if (x.request.method !== 'POST' || !x.request.path.endsWith('/chat/completions')) {
      return x.json(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    const body = (x.request.json ?? {}) as { model?: string };
    const memory = isMemory(x.request.json);
    requests.push(Object.assign(x.request, { memory }));
    const step: QwenMockStep = memory ? { kind: 'text', chunks: ['Nothing to remember.'] } : (state.queue.shift() ?? state.fallback);
    if (step.kind === 'hang') return x.hang();
    if (step.kind === 'error') {
      return x.json(step.status, { error: { message: step.message, type: 'api_error' } }, step.headers);
    }
    const out = x.sse();
    const base = { id: `chatcmpl-${requests.length}`, object: 'chat.completion.chunk', created: 1, model: body.model ?? 'mock-model' };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
      out.data({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });
    if (step.kind === 'stall') {
      chunk({ role: 'assistant', content: step.chunk });
      return x.hang();
    }
    if (step.kind === 'call') {
      const call = {
        index: 0,
        id: `call_${requests.length}`,
        type: 'function',
        function: { name: step.name, arguments: JSON.stringify(step.args) },
      };
      chunk({ role: 'assistant', tool_calls: [call] });
      chunk({}, 'tool_calls', MOCK_USAGE);
    } else {
      step.chunks.forEach((content, i) => chunk(i === 0 ? { role: 'assistant', content } : { content }));
      chunk({}, 'stop', MOCK_USAGE);
    }
    out.end('data: [DONE]\n\n');
  });
  return {
    baseURL: `${http.url}/v1`,
    get queue() {
      return state.queue;
    },
    set queue(q: QwenMockStep[]) {
      state.queue = q;
    },
    get fallback() {
      return state.fallback;
    },
    set fallback(s: QwenMockStep) {
      state.fallback = s;
    },
    requests,
    turns: () => requests.filter((r) => !r.memory),
    close: () => http.close(),
  };
}
