import { startMockHttp } from './mock-http.js';

/** How the mock answers `POST /v1/chat/completions`. */
export type MockBehaviour =
  | { kind: 'ok'; chunks: string[]; usage: Record<string, unknown> }
  | { kind: 'error'; status: number; message: string; type: string; code?: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Answers in turn (one per non-title request; the last repeats): text, or tool calls the agent then runs. */
  | { kind: 'steps'; steps: MockStep[] };

/** One scripted model answer: plain text, or tool calls (OpenAI `tool_calls`) with their arguments. */
export type MockStep = { text: string } | { calls: Array<{ name: string; args: Record<string, unknown> }> };

export interface MockChatRequest {
  path: string;
  /** OpenCode asks for a session title first; those requests are marked. */
  title: boolean;
  body: {
    model?: string;
    stream?: boolean;
    messages?: Array<{ role: string; content: unknown }>;
    tools?: Array<{ function?: { name?: string } }>;
  };
}

export interface MockOpenAIServer {
  /** Base URL for an OpenAI-compatible provider (`http://127.0.0.1:PORT/v1`). */
  baseURL: string;
  behaviour: MockBehaviour;
  readonly requests: MockChatRequest[];
  close(): Promise<void>;
}

const MOCK_USAGE = {
  prompt_tokens: 20,
  completion_tokens: 7,
  total_tokens: 27,
  prompt_tokens_details: { cached_tokens: 5 },
  completion_tokens_details: { reasoning_tokens: 2 },
};

export const MOCK_OK: MockBehaviour = { kind: 'ok', chunks: ['Hello ', 'from ', 'mock'], usage: MOCK_USAGE };

/**
 * A minimal OpenAI-compatible chat completions server (SSE streaming) on
 * 127.0.0.1, enough for the real `opencode run` and `pi` (see shared/cli-facts.md).
 */
export async function startMockOpenAIServer(behaviour: MockBehaviour = MOCK_OK): Promise<MockOpenAIServer> {
  const requests: MockChatRequest[] = [];
  // Scripted steps count from when the behaviour was set.
  const state = { behaviour, from: 0 };
  const http = await startMockHttp((x) => {
    if (x.request.method !== 'POST' || !x.request.path.endsWith('/chat/completions')) {
      return x.json(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    // An unparsable body is recorded as empty; the test will notice.
    const body = (x.request.json ?? {}) as MockChatRequest['body'];
    const title = JSON.stringify(body.messages ?? []).includes('title generator');
    requests.push({ path: x.request.url, title, body });
    const b = state.behaviour;
    if (b.kind === 'hang') return x.hang();
    if (b.kind === 'error')
      return x.json(b.status, { error: { message: b.message, type: b.type, ...(b.code ? { code: b.code } : {}) } }, b.headers);
    const out = x.sse();
    const base = {
      id: 'chatcmpl-mock',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'mock-model',
    };
    const step = b.kind === 'steps' ? (b.steps[requests.filter((r) => !r.title).length - 1 - state.from] ?? b.steps.at(-1)) : undefined;
    if (step && 'calls' in step && !title) {
      step.calls.forEach((c, index) => {
        const call = {
          index,
          id: `call_${requests.length}_${index}`,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        };
        out.data({ ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] });
      });
      out.data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: MOCK_USAGE });
      return out.end('data: [DONE]\n\n');
    }
    const chunks = title ? ['Mock title'] : step && 'text' in step ? [step.text] : b.kind === 'ok' ? b.chunks : [];
    const usage = b.kind === 'ok' ? b.usage : MOCK_USAGE;
    chunks.forEach((content, i) => {
      const delta = i === 0 ? { role: 'assistant', content } : { content };
      out.data({ ...base, choices: [{ index: 0, delta, finish_reason: null }] });
    });
    out.data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage });
    out.end('data: [DONE]\n\n');
  });
  return {
    baseURL: `${http.url}/v1`,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(next: MockBehaviour) {
      state.behaviour = next;
      state.from = requests.filter((r) => !r.title).length;
    },
    requests,
    close: () => http.close(),
  };
}

/** A mock request's messages as `role: text` lines (text parts joined), to see what the model was given. */
export function transcriptOf(body: { messages?: Array<{ role: string; content: unknown }> }): string[] {
  return (body.messages ?? []).map((m) => {
    const content = m.content;
    const text =
      typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';
    return `${m.role}: ${text}`;
  });
}
