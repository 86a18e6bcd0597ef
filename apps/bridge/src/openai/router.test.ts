import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  createToolbridge,
  ProviderExecutionError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  AbortedError,
  type ToolAdapter,
} from 'toolbridge';
import { toolRequestOf, waitFor } from '@toolbridge/test-suite/kit';
import { createFakeAdapter } from './testing/fake-adapter.js';
import { serveOpenAI, sseData, type OpenAIServer } from './testing/serve.js';

type APIError = InstanceType<typeof OpenAI.APIError>;

const bridgeOf = (adapters: ToolAdapter[]) => createToolbridge({ adapters, env: {} });

const agent = createFakeAdapter({
  id: 'agent',
  models: ['gpt-5'],
  behaviour: { usage: { input_tokens: 1234, cached_input_tokens: 1000, output_tokens: 56, reasoning_output_tokens: 7 } },
});
const runtime = createFakeAdapter({
  id: 'runtime',
  type: 'runtime',
  models: ['qwen3:14b', 'llama3.2:latest'],
  behaviour: (req) => ({ deltas: ['model=', String(req.model)], usage: { input_tokens: 10, output_tokens: 2 } }),
});
const missing = createFakeAdapter({
  id: 'missing',
  available: false,
  reason: 'missing is not installed (command "missing" was not found on PATH)',
});
const loggedOut = createFakeAdapter({
  id: 'logged-out',
  behaviour: { fail: new ToolAuthError('Not logged in; run `logged-out login`', { toolId: 'logged-out' }) },
});
const limited = createFakeAdapter({
  id: 'limited',
  behaviour: { fail: new RateLimitError('usage limit reached', { toolId: 'limited', retryAfterMs: 30_000 }) },
});
const broken = createFakeAdapter({
  id: 'broken',
  behaviour: { fail: new ProviderExecutionError('the model server answered 500', { toolId: 'broken' }) },
});
const buggy = createFakeAdapter({ id: 'buggy', behaviour: { fail: new Error('ENOENT /home/alice/secret-path/state.json') } });
const hanging = createFakeAdapter({ id: 'hanging', behaviour: { deltas: [], hang: true } });
const midFail = createFakeAdapter({
  id: 'mid-fail',
  behaviour: {
    deltas: ['partial ', 'answer ', 'never sent'],
    failAfterDeltas: 2,
    fail: new ProviderExecutionError('the tool crashed', { toolId: 'mid-fail' }),
  },
});
const slow = createFakeAdapter({ id: 'slow', behaviour: { deltas: ['first', 'second'], hang: true } });
const silent = createFakeAdapter({ id: 'silent', behaviour: { deltas: [] } });

let server: OpenAIServer;
let client: OpenAI;
const toolbridge = bridgeOf([agent, runtime, missing, loggedOut, limited, broken, buggy, hanging, midFail, slow, silent]);

beforeAll(async () => {
  server = await serveOpenAI(toolbridge, { chatTimeoutMs: 300 });
  client = server.client;
});
afterAll(async () => {
  await server.close();
  await toolbridge.close();
});

const hello = [{ role: 'user' as const, content: 'Say hello' }];

async function statusOf(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OpenAI.APIError);
    return e as APIError;
  }
  throw new Error('expected the call to fail');
}

describe('GET /v1/models', () => {
  it('lists every available tool and each of its models, and no unavailable tool', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      expect(m.object).toBe('model');
      expect(Number.isInteger(m.created)).toBe(true);
      ids.push(m.id);
    }
    expect(ids).toEqual(expect.arrayContaining(['agent', 'agent/gpt-5', 'runtime', 'runtime/qwen3:14b', 'runtime/llama3.2:latest']));
    expect(ids.some((id) => id.startsWith('missing'))).toBe(false);
  });

  it('retrieves one model by an id that contains slashes, and 404s unknown ones', async () => {
    const m = await client.models.retrieve('runtime/qwen3:14b');
    expect(m).toMatchObject({ id: 'runtime/qwen3:14b', object: 'model', owned_by: 'runtime' });
    const err = await statusOf(client.models.retrieve('runtime/nope'));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.code).toBe('model_not_found');
  });
});

describe('POST /v1/chat/completions (non-streamed)', () => {
  it('answers a chat.completion with the text, the requested model id and mapped usage', async () => {
    const completion = await client.chat.completions.create({ model: 'agent', messages: hello });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('agent');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Hello from agent' },
    });
    // Codex-style usage: cached tokens are part of input_tokens, reasoning part of output_tokens.
    expect(completion.usage).toEqual({
      prompt_tokens: 1234,
      completion_tokens: 56,
      total_tokens: 1290,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
  });

  it('translates messages: text parts joined, developer as system, max_tokens and temperature passed on', async () => {
    await client.chat.completions.create({
      model: 'agent',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'line one' },
            { type: 'text', text: 'line two' },
          ],
        },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'again' },
      ],
      max_tokens: 64,
      temperature: 0.2,
    });
    expect(agent.requests.at(-1)).toEqual(
      toolRequestOf({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'line one\nline two' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'again' },
        ],
        maxTokens: 64,
        temperature: 0.2,
      }),
    );
    await client.chat.completions.create({ model: 'agent', messages: hello, max_completion_tokens: 9 });
    expect(agent.requests.at(-1)!.maxTokens).toBe(9);
  });

  it('splits tool/model on the first slash only', async () => {
    const c = await client.chat.completions.create({ model: 'runtime/qwen3:14b', messages: hello });
    expect(c.choices[0]!.message.content).toBe('model=qwen3:14b');
    expect(c.model).toBe('runtime/qwen3:14b');
    await client.chat.completions.create({ model: 'agent/mock/mock-model', messages: hello });
    expect(agent.requests.at(-1)!.model).toBe('mock/mock-model');
    // Bare Ollama names resolve to their :latest tag, as Ollama does.
    const latest = await client.chat.completions.create({ model: 'runtime/llama3.2', messages: hello });
    expect(latest.choices[0]!.message.content).toBe('model=llama3.2');
  });
});

describe('POST /v1/chat/completions (streamed)', () => {
  it('streams chat.completion.chunk events: role first, then the text, then stop and usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'runtime/qwen3:14b',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'runtime/qwen3:14b')).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('model=qwen3:14b');
    const finishes = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
  });

  it('ends the SSE body with data: [DONE] and sends no usage chunk unless asked', async () => {
    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent', messages: hello, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = sseData(await res.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Hello from agent');
  });

  it('sends the whole answer as one chunk when the tool reports no deltas', async () => {
    const stream = await client.chat.completions.create({ model: 'silent', messages: hello, stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]!.finish_reason)).toEqual([null, 'stop']);
    expect(chunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).toBe('');
  });

  it('reports a failure before the first token as an HTTP error with its status', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'logged-out', messages: hello, stream: true }));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
  });

  it('ends a stream that fails after text with an error event and no [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'mid-fail', messages: hello, stream: true });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    } catch (e) {
      caught = e;
    }
    expect(seen.join('')).toBe('partial answer ');
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    expect((caught as APIError).code).toBe('provider_execution_failed');

    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mid-fail', messages: hello, stream: true }),
    });
    const data = sseData(await res.text());
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1)!)).toEqual({
      error: { message: 'the tool crashed', type: 'server_error', param: null, code: 'provider_execution_failed' },
    });
  });

  it('ends a stream that passes the deadline after text with a timeout error event', async () => {
    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', messages: hello, stream: true }),
    });
    const data = sseData(await res.text());
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1)!).error.code).toBe('timeout');
  });

  it('aborts the tool call when the client disconnects mid-stream', async () => {
    const before = slow.aborts.length;
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ model: 'slow', messages: hello, stream: true }, { signal: controller.signal });
    const it = stream[Symbol.asyncIterator]();
    await it.next(); // role chunk
    controller.abort();
    await waitFor(() => slow.aborts.length > before, 5000, 'the tool call to be aborted');
    expect(AbortedError.isInstance(slow.aborts.at(-1))).toBe(true);
  });
});

describe('errors in OpenAI shape', () => {
  it('404s an unknown tool with code model_not_found', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'nope', messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.code).toBe('model_not_found');
    expect(err.param).toBe('model');
    expect(err.message).toContain('nope');
  });

  it('404s a model the runtime does not have, naming the ones it has', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'runtime/gpt-oss:120b', messages: hello }));
    expect(err.status).toBe(404);
    expect(err.message).toContain('runtime/qwen3:14b');
  });

  it('503s a tool that is not installed, with the reason', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'missing', messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('tool_unavailable');
    expect(err.message).toContain('not found on PATH');
  });

  it('401s a logged-out tool', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'logged-out', messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.code).toBe('tool_auth_required');
    expect(err.type).toBe('authentication_error');
  });

  it('504s a chat past the server deadline and aborts the tool', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'hanging', messages: hello }));
    expect(err.status).toBe(504);
    expect(err.code).toBe('timeout');
    await waitFor(() => hanging.aborts.length > 0, 2000, 'the hung call to be aborted');
    expect(TimeoutError.isInstance(hanging.aborts[0])).toBe(true);
  });

  it('429s a rate limit with Retry-After', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'limited', messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.headers?.get('retry-after')).toBe('30');
  });

  it('502s a provider failure', async () => {
    const err = await statusOf(client.chat.completions.create({ model: 'broken', messages: hello }));
    expect(err.status).toBe(502);
    expect(err.message).toContain('the model server answered 500');
  });

  it('500s an unexpected error without leaking its message', async () => {
    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'buggy', messages: hello }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret-path');
    expect(JSON.parse(text)).toEqual({
      error: { message: 'Unexpected internal error', type: 'server_error', param: null, code: 'internal_error' },
    });
  });

  it.each([
    [{ messages: hello }, 'model'],
    [{ model: 'agent' }, 'messages'],
    [{ model: 'agent', messages: [] }, 'messages'],
    [{ model: 'agent', messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ model: 'agent', messages: [{ role: 'robot', content: 'hi' }] }, 'messages[0].role'],
    [{ model: 'agent', messages: [{ role: 'system', content: 'only instructions' }] }, 'messages'],
    [{ model: 'agent', messages: hello, temperature: 5 }, 'temperature'],
    [{ model: 'agent', messages: hello, max_tokens: 0 }, 'max_tokens'],
    [{ model: 'agent', messages: hello, stream: 'yes' }, 'stream'],
    [{ model: 'agent', messages: hello, n: 3 }, 'n'],
    [{ model: 'agent', messages: hello, tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
    [
      { model: 'agent', messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      'response_format.json_schema.schema',
    ],
    [{ model: 'agent', messages: hello, response_format: { type: 'yaml' } }, 'response_format.type'],
    [{ model: 'agent', messages: [{ role: 'tool', content: 'x', tool_call_id: '1' }] }, 'messages[0].role'],
    [
      {
        model: 'agent',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            ],
          },
        ],
      },
      'messages[0].content[1].image_url.url',
    ],
    [{ model: 'agent', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, 'messages[0].content[0].type'],
  ])('400s an invalid body %j naming %s', async (body, param) => {
    const err = await statusOf(client.chat.completions.create(body as never));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.param).toBe(param);
    expect(err.message).toContain(param.split('.')[0]!.replace(/\[.*$/, ''));
  });

  it('never calls the tool for an invalid body', async () => {
    const before = agent.requests.length;
    await statusOf(client.chat.completions.create({ model: 'agent', messages: hello, n: 2 }));
    expect(agent.requests.length).toBe(before);
  });

  it('ignores OpenAI fields it cannot use but that do not change the answer', async () => {
    const c = await client.chat.completions.create({ model: 'agent', messages: hello, top_p: 0.5, user: 'u1', seed: 1, stop: ['x'], n: 1 });
    expect(c.choices[0]!.message.content).toBe('Hello from agent');
  });

  it('answers unknown /v1 routes with a 404 in OpenAI shape', async () => {
    const res = await fetch(`${server.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent', input: 'x' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      message: 'Invalid URL (POST /v1/embeddings)',
      type: 'invalid_request_error',
    });
  });
});

describe('body parsing', () => {
  let bare: OpenAIServer;
  const tb = bridgeOf([createFakeAdapter({ id: 'agent' })]);
  beforeAll(async () => {
    bare = await serveOpenAI(tb, { parseJson: false, bodyLimit: 1024 });
  });
  afterAll(async () => {
    await bare.close();
    await tb.close();
  });

  it('parses JSON itself when the parent app does not', async () => {
    const c = await bare.client.chat.completions.create({ model: 'agent', messages: hello });
    expect(c.choices[0]!.message.content).toBe('Hello from agent');
  });

  it('answers malformed JSON with a 400 in OpenAI shape and no stack trace', async () => {
    const res = await fetch(`${bare.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model": "agent", "messages": [',
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/at .*\.js|SyntaxError/);
    expect(JSON.parse(text)).toEqual({
      error: { message: 'The request body is not valid JSON.', type: 'invalid_request_error', param: null, code: 'invalid_request' },
    });
  });

  it('answers an oversized body with a 413 in OpenAI shape', async () => {
    const res = await fetch(`${bare.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'x'.repeat(4096) }] }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('The request body is too large.');
  });
});
