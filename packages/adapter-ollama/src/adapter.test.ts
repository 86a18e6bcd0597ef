import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  InvalidRequestError,
  ProviderExecutionError,
  RateLimitError,
  TimeoutError,
  ToolUnavailableError,
  type CallContext,
  type ChatRequest,
  type StreamEvent,
  type ToolbridgeConfig,
} from '@toolbridge/core';
import { createCallContext, createRegistry } from '@toolbridge/core/runtime';
import { adapterChat, adapterStream, waitFor } from '@toolbridge/test-suite/kit';
import { createOllamaAdapter } from './adapter.js';
import { closedPort, startFakeOllama, type FakeOllama } from './testing/fake-ollama.js';

let fake: FakeOllama;
const adapter = createOllamaAdapter();
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

beforeAll(async () => {
  fake = await startFakeOllama();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  fake.options.models = ['qwen3:14b', 'llama3.2:latest'];
  fake.options.reply = 'Hello! How can I help you today?';
  fake.options.thinking = '';
});

function ctxFor(config: ToolbridgeConfig = {}, options: { timeoutMs?: number; signal?: AbortSignal } = {}): CallContext {
  return createCallContext({ config: { ollamaHost: fake.url, ...config }, env: {}, toolId: 'ollama' }, options).ctx;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const chatRequests = () => fake.requests.filter((r) => r.path === '/api/chat');

describe('detect', () => {
  it('reports the version, the installed models and the first as default', async () => {
    expect(await adapter.detect(ctxFor())).toEqual({
      available: true,
      version: '0.9.0',
      models: ['qwen3:14b', 'llama3.2:latest'],
      defaultModel: 'qwen3:14b',
    });
  });

  it('prefers the configured model when it is installed (with or without :latest)', async () => {
    expect((await adapter.detect(ctxFor({ ollamaModel: 'llama3.2:latest' }))).defaultModel).toBe('llama3.2:latest');
    expect((await adapter.detect(ctxFor({ ollamaModel: 'llama3.2' }))).defaultModel).toBe('llama3.2:latest');
    expect((await adapter.detect(ctxFor({ ollamaModel: 'mistral' }))).defaultModel).toBe('qwen3:14b');
  });

  it('is available with no models installed', async () => {
    fake.options.models = [];
    const d = await adapter.detect(ctxFor());
    expect(d).toEqual({ available: true, version: '0.9.0', models: [] });
  });

  it('tells connection refused apart from a probe timeout', async () => {
    const port = await closedPort();
    const refused = await adapter.detect(ctxFor({ ollamaHost: `http://127.0.0.1:${port}` }));
    expect(refused.available).toBe(false);
    expect(refused.reason).toBe(`Ollama is not running at http://127.0.0.1:${port} (connection refused); start it with \`ollama serve\``);

    fake.set('/api/tags', { kind: 'hang' });
    const quick = createOllamaAdapter({ probeTimeoutMs: 150 });
    const slow = await quick.detect(ctxFor());
    expect(slow).toEqual({ available: false, models: [], reason: `Ollama at ${fake.url} did not answer within 150 ms` });
    // The probe gave up on the request rather than leaving it open.
    await waitFor(() => fake.requests.some((r) => r.path === '/api/tags' && r.closedEarly), 2000, 'the tags probe to close');
  });

  it('says when the server does not look like Ollama', async () => {
    fake.set('/api/version', { kind: 'status', status: 404, error: 'nope' });
    const d = await adapter.detect(ctxFor());
    expect(d.available).toBe(false);
    expect(d.reason).toMatch(/\/api\/version failed with HTTP 404: nope/);
  });

  it('lets the caller deadline surface instead of calling Ollama unavailable', async () => {
    fake.set('/api/version', { kind: 'hang' });
    const error = await adapter.detect(ctxFor({}, { timeoutMs: 100 })).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('chat and stream', () => {
  it('streams each delta, then one result with usage, model and timings', async () => {
    const events = await collect(adapterStream(adapter, hello, ctxFor()));
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    expect(deltas).toEqual(['Hello! ', 'How ', 'can ', 'I ', 'help ', 'you ', 'today?']);
    expect(events.at(-1)).toEqual({
      type: 'result',
      result: {
        message: { role: 'assistant', content: 'Hello! How can I help you today?' },
        usage: { input_tokens: expect.any(Number), output_tokens: 7 },
        model: 'qwen3:14b',
        metadata: {
          transport: 'http',
          total_duration: 912_000_000,
          load_duration: 41_000_000,
          prompt_eval_duration: 88_000_000,
          eval_duration: 760_000_000,
          done_reason: 'stop',
        },
      },
    });
    expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
  });

  it('sends the messages with their roles, stream: true, and the generation options', async () => {
    const messages: ChatRequest['messages'] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Count to three' },
    ];
    const result = await adapterChat(adapter, { messages, model: 'llama3.2', maxTokens: 3, temperature: 0.2 }, ctxFor());
    expect(chatRequests().map((r) => r.body)).toEqual([
      { model: 'llama3.2', messages, stream: true, options: { num_predict: 3, temperature: 0.2 } },
    ]);
    expect(result.message.content).toBe('Hello! How can ');
    expect(result.metadata.done_reason).toBe('length');
    // The model is the one that answered, as Ollama names it.
    expect(result.model).toBe('llama3.2:latest');

    await adapterChat(adapter, hello, ctxFor());
    expect(chatRequests()[1]!.body).toEqual({ model: 'qwen3:14b', messages: hello.messages, stream: true });
  });

  it('picks the model: request, then configured, then the first installed', async () => {
    await adapterChat(adapter, { ...hello, model: 'llama3.2:latest' }, ctxFor({ ollamaModel: 'qwen3:14b' }));
    await adapterChat(adapter, hello, ctxFor({ ollamaModel: 'llama3.2:latest' }));
    expect(fake.requests.map((r) => r.path)).toEqual(['/api/chat', '/api/chat']);
    fake.options.models = ['llama3.2:latest', 'qwen3:14b'];
    await adapterChat(adapter, hello, ctxFor());
    expect(fake.requests.map((r) => r.path)).toEqual(['/api/chat', '/api/chat', '/api/tags', '/api/chat']);
    expect(chatRequests().map((r) => (r.body as { model: string }).model)).toEqual([
      'llama3.2:latest',
      'llama3.2:latest',
      'llama3.2:latest',
    ]);
  });

  it('refuses to chat when no model is installed and none is named', async () => {
    fake.options.models = [];
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ toolId: 'ollama', message: expect.stringMatching(/No Ollama model is installed/) });
    expect(chatRequests()).toHaveLength(0);
  });

  it('reports thinking as one reasoning activity, not as answer text: started, then completed with the whole text', async () => {
    fake.options.thinking = 'The user greets me. ';
    const reasoning = (status: string, text: string) => ({
      type: 'activity',
      activity: { id: 'reasoning', kind: 'reasoning', status, title: 'Thinking', text },
    });
    // Updates come at most once per interval: with a long one, none between start and end.
    const events = await collect(adapterStream(createOllamaAdapter({ reasoningUpdateMs: 60_000 }), hello, ctxFor()));
    expect(events.filter((e) => e.type === 'activity')).toEqual([
      reasoning('started', 'The '),
      reasoning('completed', 'The user greets me. '),
    ]);
    const last = events.at(-1)!;
    expect(last.type === 'result' && last.result.message.content).toBe('Hello! How can I help you today?');
    // Without a throttle every chunk shows.
    const each = await collect(adapterStream(createOllamaAdapter({ reasoningUpdateMs: 0 }), hello, ctxFor()));
    expect(each.filter((e) => e.type === 'activity')).toEqual([
      reasoning('started', 'The '),
      reasoning('updated', 'The user '),
      reasoning('updated', 'The user greets '),
      reasoning('updated', 'The user greets me. '),
      reasoning('completed', 'The user greets me. '),
    ]);
  });

  it('reassembles lines and UTF-8 characters split across network chunks', async () => {
    fake.options.reply = 'Grüße 👋 日本語 ok';
    fake.set('/api/chat', { kind: 'trickle', bytes: 3 });
    const result = await adapterChat(adapter, hello, ctxFor());
    expect(result.message.content).toBe('Grüße 👋 日本語 ok');
    expect(result.usage.output_tokens).toBe(4);
  });

  it('reuses one kept-alive connection for consecutive calls', async () => {
    const before = fake.connections;
    await adapterChat(adapter, hello, ctxFor({ ollamaModel: 'qwen3:14b' }));
    await adapterChat(adapter, hello, ctxFor({ ollamaModel: 'qwen3:14b' }));
    await adapterChat(adapter, hello, ctxFor({ ollamaModel: 'qwen3:14b' }));
    expect(fake.connections - before).toBeLessThanOrEqual(1);
  });
});

describe('failures', () => {
  it('a missing model: InvalidRequestError naming it and listing the installed ones', async () => {
    const error = await adapterChat(adapter, { ...hello, model: 'mistral:7b' }, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe(
      'Ollama has no model "mistral:7b" (model "mistral:7b" not found, try pulling it first). Installed models: qwen3:14b, llama3.2:latest. Pull it with `ollama pull mistral:7b`.',
    );
    expect(error).toMatchObject({
      toolId: 'ollama',
      httpStatus: 400,
      details: { model: 'mistral:7b', installed: ['qwen3:14b', 'llama3.2:latest'] },
    });
  });

  it('understands the newer not-found wording too', async () => {
    fake.set('/api/chat', { kind: 'status', status: 404, error: "model 'qwen3:14b' not found" });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(/^Ollama has no model "qwen3:14b"/);
  });

  it("a 500: ProviderExecutionError with Ollama's message", async () => {
    fake.set('/api/chat', {
      kind: 'status',
      status: 500,
      error: 'model requires more system memory (9.3 GiB) than is available (4.1 GiB)',
    });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({
      toolId: 'ollama',
      httpStatus: 502,
      message: 'Ollama /api/chat failed with HTTP 500: model requires more system memory (9.3 GiB) than is available (4.1 GiB)',
    });
  });

  it("a 400: ProviderExecutionError with Ollama's message", async () => {
    fake.set('/api/chat', { kind: 'status', status: 400, error: '"nomic-embed-text" does not support chat' });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/does not support chat$/);
    expect(error.retryable).toBe(false);
  });

  it('server busy (503) and 429: retryable RateLimitError, Retry-After honoured', async () => {
    fake.set('/api/chat', { kind: 'status', status: 503, error: 'server busy, please try again.  maximum pending requests exceeded' });
    const busy = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(busy).toBeInstanceOf(RateLimitError);
    expect(busy).toMatchObject({ toolId: 'ollama', retryable: true, httpStatus: 429, retryAfterMs: undefined });

    fake.set('/api/chat', { kind: 'status', status: 429, error: 'too many requests', headers: { 'Retry-After': '7' } });
    const limited = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retryAfterMs).toBe(7000);
    expect(limited.message).toBe('Ollama is busy (HTTP 429): too many requests');
  });

  it('an {"error"} line mid-stream: ProviderExecutionError with Ollama\'s message', async () => {
    fake.set('/api/chat', {
      kind: 'stream-error',
      afterChunks: 2,
      error: 'an error was encountered while running the model: unexpected EOF',
    });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const e of adapterStream(adapter, hello, ctxFor())) events.push(e);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toBe('Ollama failed while answering: an error was encountered while running the model: unexpected EOF');
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta']);
  });

  it('a stream cut mid-way: ProviderExecutionError, never a partial answer', async () => {
    fake.set('/api/chat', { kind: 'cut', afterChunks: 3 });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ toolId: 'ollama', retryable: true });
    expect(error.message).toMatch(/lost before the answer was complete/);
  });

  it('a stream that ends cleanly without done:true: ProviderExecutionError', async () => {
    fake.set('/api/chat', { kind: 'no-done' });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/without the final chunk/);
  });

  it('a server that never stops answering is cut off at maxResponseBytes and the request closed', async () => {
    fake.set('/api/chat', { kind: 'flood' });
    const small = createOllamaAdapter({ maxResponseBytes: 2 * 1024 * 1024 });
    const error = await adapterChat(small, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toBe(`Ollama sent more than ${2 * 1024 * 1024} bytes; the answer was cut off`);
    await waitFor(() => chatRequests()[0]?.closedEarly === true);
  });

  it('a flood through the default bound (32 MiB) fails the same way', async () => {
    fake.set('/api/chat', { kind: 'flood' });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error.message).toMatch(/more than 33554432 bytes/);
  });

  it('a huge body where a small JSON answer belongs is refused without reading it all', async () => {
    fake.set('/api/version', { kind: 'huge', bytes: 8 * 1024 * 1024 });
    const detected = await adapter.detect(ctxFor());
    expect(detected.available).toBe(false);
    expect(detected.reason).toMatch(/answered with more than 4194304 bytes; is this an Ollama server\?/);
  });

  it('connection refused: ToolUnavailableError (503) naming the URL', async () => {
    const port = await closedPort();
    const error = await adapterChat(adapter, { ...hello, model: 'qwen3:14b' }, ctxFor({ ollamaHost: `http://127.0.0.1:${port}` })).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error).toMatchObject({ toolId: 'ollama', httpStatus: 503, details: { code: 'ECONNREFUSED' } });
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
  });

  it('a connection reset before the answer: retryable ToolUnavailableError naming the URL', async () => {
    fake.set('/api/chat', { kind: 'reset' });
    const error = await adapterChat(adapter, hello, ctxFor()).catch((e) => e);
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error).toMatchObject({ toolId: 'ollama', httpStatus: 503, retryable: true });
    expect(error.message).toContain(`Ollama at ${fake.url} was closed before it answered`);
  });

  it('slow first byte within the deadline: answers', async () => {
    fake.set('/api/chat', { kind: 'slow', delayMs: 300 });
    const result = await adapterChat(adapter, hello, ctxFor({}, { timeoutMs: 5000 }));
    expect(result.message.content).toBe('Hello! How can I help you today?');
  });

  it("slow first byte past the deadline: the deadline's TimeoutError, request closed", async () => {
    fake.set('/api/chat', { kind: 'slow', delayMs: 5000 });
    const error = await adapterChat(adapter, hello, ctxFor({}, { timeoutMs: 150 })).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toBe('ollama timed out after 150 ms');
    await waitFor(() => chatRequests()[0]?.closedEarly === true, 2000, 'the chat request to close');
  });

  it('firstByteTimeoutMs bounds the wait for Ollama to start answering', async () => {
    fake.set('/api/chat', { kind: 'slow', delayMs: 5000 });
    const bounded = createOllamaAdapter({ firstByteTimeoutMs: 100 });
    const error = await adapterChat(bounded, hello, ctxFor({}, { timeoutMs: 10_000 })).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ toolId: 'ollama', message: expect.stringMatching(/did not start answering within 100 ms/) });
    await waitFor(() => chatRequests()[0]?.closedEarly === true, 2000, 'the chat request to close');
  });

  it('an abort mid-stream closes the HTTP request and surfaces the abort', async () => {
    fake.set('/api/chat', { kind: 'stall', afterChunks: 2 });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const e of adapterStream(adapter, hello, ctxFor({}, { signal: controller.signal }))) {
        events.push(e);
        if (events.length === 2) controller.abort();
      }
    })().catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error.toolId).toBe('ollama');
    expect(events).toEqual([
      { type: 'delta', text: 'Hello! ' },
      { type: 'delta', text: 'How ' },
    ]);
    await waitFor(() => chatRequests()[0]!.closedEarly, 2000, 'the server to see the connection close');
  });

  it('a consumer that stops reading closes the HTTP request', async () => {
    fake.set('/api/chat', { kind: 'stall', afterChunks: 2 });
    for await (const e of adapterStream(adapter, hello, ctxFor())) {
      expect(e.type).toBe('delta');
      break;
    }
    await waitFor(() => chatRequests()[0]!.closedEarly, 2000, 'the server to see the connection close');
  });
});

describe('completion', () => {
  it('posts to /api/generate and accumulates the response', async () => {
    const result = await adapter.complete!(
      { prompt: 'Once upon a time', system: 'You write fables.', maxTokens: 4, temperature: 0 },
      ctxFor({ ollamaModel: 'llama3.2' }),
    );
    expect(fake.requests.filter((r) => r.path === '/api/generate').map((r) => r.body)).toEqual([
      {
        model: 'llama3.2',
        prompt: 'Once upon a time',
        system: 'You write fables.',
        stream: true,
        options: { num_predict: 4, temperature: 0 },
      },
    ]);
    expect(result).toEqual({
      text: 'Hello! How can I ',
      usage: { input_tokens: expect.any(Number), output_tokens: 4 },
      model: 'llama3.2:latest',
      metadata: expect.objectContaining({ done_reason: 'length', total_duration: 912_000_000 }),
    });
  });

  it('fails like chat does (missing model, cut stream) and validates the prompt', async () => {
    await expect(adapter.complete!({ prompt: 'x', model: 'nope' }, ctxFor())).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('Installed models: qwen3:14b, llama3.2:latest'),
    });
    fake.set('/api/generate', { kind: 'cut', afterChunks: 1 });
    await expect(adapter.complete!({ prompt: 'x' }, ctxFor())).rejects.toBeInstanceOf(ProviderExecutionError);
    await expect(adapter.complete!({ prompt: '' }, ctxFor())).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(adapter.complete!({ prompt: 'x', maxTokens: 0 }, ctxFor())).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

describe('through the registry', () => {
  it('connects a runtime without an auth flow, with complete() and no usage limits', async () => {
    const registry = createRegistry({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: fake.url.replace('http://', '') } });
    try {
      const tool = await registry.connect('ollama');
      expect(tool).toMatchObject({ id: 'ollama', type: 'runtime', version: '0.9.0', defaultModel: 'qwen3:14b' });
      expect(tool.checkAuth).toBeUndefined();
      expect(tool.startAuth).toBeUndefined();
      expect((await tool.complete!({ prompt: 'Hi' })).text).toBe('Hello! How can I help you today?');
      const health = await tool.health();
      expect(health).toMatchObject({
        status: 'healthy',
        authSupported: false,
        authStatus: 'not_required',
        version: '0.9.0',
        usageLimits: { status: 'unavailable', reason: 'Ollama runs models locally and has no usage limits' },
      });
    } finally {
      await registry.close();
    }
  });
});
