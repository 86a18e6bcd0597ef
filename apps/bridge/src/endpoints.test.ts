import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, TimeoutError, ToolAuthError, ToolUnavailableError } from '@toolbridge/core';
import { createAjv } from '@toolbridge/core/runtime';
import { readFileSync } from 'node:fs';
import { memoryAdapter } from './testing/adapters.js';
import { toolRequestOf } from '@toolbridge/test-suite/kit';
import { rawRequest, startTestBridge, type TestBridge } from './testing/harness.js';
import { fallbackChatRequestSchema, toolChatRequestSchema } from './schemas.js';

const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };
const pkgVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('bridge endpoints', () => {
  let bridge: TestBridge;
  const alpha = memoryAdapter('alpha', {
    reply: 'Hello there friend',
    usageLimits: {
      status: 'available',
      source: 'local_session',
      plan: 'plus',
      windows: { five_hour: { usedPercentage: 42, remainingPercentage: 58, resetsAt: '2030-01-01T00:00:00.000Z' } },
    },
  });
  const runtime = memoryAdapter('runtime', { type: 'runtime', login: 'none', reply: 'local answer' });
  const loggedOut = memoryAdapter('loggedout', {
    login: 'logged-out',
    fail: () => new ToolAuthError('loggedout is not logged in; run "loggedout login"', { toolId: 'loggedout' }),
  });
  const buggy = memoryAdapter('buggy', { fail: () => new TypeError('secret internal detail: cannot read properties of undefined') });
  const broken = memoryAdapter('broken', {
    fail: () => new ProviderExecutionError('broken crashed with exit code 3', { toolId: 'broken' }),
  });
  const down = memoryAdapter('down', {
    available: false,
    fail: () => new ToolUnavailableError('down is not installed', { toolId: 'down' }),
  });
  const slow = memoryAdapter('slow', { delayMs: 5_000 });

  beforeAll(async () => {
    bridge = await startTestBridge([alpha, runtime, loggedOut, buggy, broken, down, slow], { healthTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('GET /discover lists every tool in the spec shape', async () => {
    const res = await bridge.request('/discover');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { tools: Array<Record<string, unknown>> };
    expect(body.tools.map((t) => t.id)).toEqual(['alpha', 'runtime', 'loggedout', 'buggy', 'broken', 'down', 'slow']);
    expect(body.tools[0]).toEqual({
      id: 'alpha',
      name: 'Memory alpha',
      type: 'agent',
      available: true,
      version: '1.2.3',
      capabilities: ['agent-task', 'code-analysis', 'code-edit', 'chat', 'health-check'],
      models: ['alpha-default'],
      defaultModel: 'alpha-default',
      features: {},
    });
    expect(body.tools[1]).toMatchObject({
      id: 'runtime',
      type: 'runtime',
      capabilities: ['chat', 'completion', 'model-list', 'health-check'],
    });
    expect(body.tools[5]).toMatchObject({ id: 'down', available: false, reason: 'down is not installed' });
  });

  it('GET /health aggregates all tools with auth state and usage windows', async () => {
    const res = await bridge.request('/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string; uptimeMs: number; tools: Array<Record<string, unknown>> };
    expect(body.status).toBe('ok');
    expect(body.version).toBe(pkgVersion);
    expect(typeof body.uptimeMs).toBe('number');
    expect(body.tools).toHaveLength(7);
    const byId = Object.fromEntries(body.tools.map((t) => [t.toolId, t]));
    expect(byId.alpha).toMatchObject({
      status: 'healthy',
      available: true,
      authSupported: true,
      authenticated: true,
      authStatus: 'authenticated',
      usageLimits: {
        status: 'available',
        source: 'local_session',
        plan: 'plus',
        windows: { five_hour: { usedPercentage: 42, remainingPercentage: 58 } },
      },
    });
    expect(typeof byId.alpha!.latencyMs).toBe('number');
    expect(new Date(String(byId.alpha!.checkedAt)).toISOString()).toBe(byId.alpha!.checkedAt);
    expect(byId.runtime).toMatchObject({ status: 'healthy', authSupported: false, authenticated: true });
    expect(byId.loggedout).toMatchObject({ status: 'healthy', authenticated: false, authStatus: 'unauthenticated' });
    expect(byId.down).toMatchObject({ status: 'unavailable', available: false, reason: 'down is not installed' });
  });

  it('GET /health/:toolId returns one record with the tool version; unknown id is 404 tool_not_found', async () => {
    const res = await bridge.request('/health/alpha');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ toolId: 'alpha', status: 'healthy', version: '1.2.3', authStatus: 'authenticated' });
    const missing = await bridge.request('/health/nope');
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('tool_not_found');
    expect(body.error.message).toContain('"nope"');
  });

  it('POST /chat/:toolId answers in the spec shape', async () => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: hello });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      toolId: 'alpha',
      type: 'agent',
      model: 'alpha-default',
      sessionId: expect.stringMatching(/^tbs_/),
      result: { message: { role: 'assistant', content: 'Hello there friend' }, usage: { input_tokens: 3, output_tokens: 3 } },
      latencyMs: expect.any(Number),
    });
    expect(alpha.requests.at(-1)).toEqual(toolRequestOf(hello));
  });

  it('passes model, and runtime tools answer with type runtime', async () => {
    const res = await bridge.request('/chat/runtime', { method: 'POST', json: { ...hello, model: 'tiny' } });
    expect(await res.json()).toMatchObject({ toolId: 'runtime', type: 'runtime', model: 'tiny' });
  });

  it.each([
    [{}, /missing required field "messages"/],
    [{ messages: [] }, /messages must contain at least 1 item/],
    [{ messages: [{ role: 'robot', content: 'x' }] }, /messages\.0\.role must be one of/],
    [{ messages: [{ role: 'user', content: 5 }] }, /messages\.0\.content must be a string or an array of parts/],
    [{ ...hello, timeoutMs: -1 }, /timeoutMs must be >= 1/],
    [{ ...hello, timeoutMs: 'soon' }, /timeoutMs must be an integer/],
    [{ ...hello, bogus: 1 }, /unknown field "bogus"/],
    [{ messages: [{ role: 'assistant', content: 'hi' }] }, /at least one message with role "user"/],
  ])('POST /chat/:toolId rejects %j with 400 invalid_request naming the field', async (body, message) => {
    const res = await bridge.request('/chat/alpha', { method: 'POST', json: body });
    expect(res.status).toBe(400);
    const env = (await res.json()) as { error: { code: string; message: string } };
    expect(env.error.code).toBe('invalid_request');
    expect(env.error.message).toMatch(message);
  });

  it('maps every error of the spec table to its status and code', async () => {
    const cases: Array<[string, unknown, number, string]> = [
      ['/chat/nope', hello, 404, 'tool_not_found'],
      ['/chat/loggedout', hello, 401, 'tool_auth_required'],
      ['/chat/buggy', hello, 500, 'internal_error'],
      ['/chat/broken', hello, 502, 'provider_execution_failed'],
      ['/chat/down', hello, 503, 'tool_unavailable'],
      ['/chat/slow', { ...hello, timeoutMs: 100 }, 504, 'timeout'],
      ['/chat/alpha', { messages: 'nope' }, 400, 'invalid_request'],
    ];
    for (const [path, json, status, code] of cases) {
      const res = await bridge.request(path, { method: 'POST', json });
      const text = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status });
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(typeof body.error.message).toBe('string');
      expect(text).not.toMatch(/at .*\.(ts|js):\d+/); // no stack trace
    }
  });

  it('never leaks an adapter bug: 500 with a generic message', async () => {
    const res = await bridge.request('/chat/buggy', { method: 'POST', json: hello });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(text).not.toContain('secret internal detail');
    expect(text).not.toContain('TypeError');
  });

  it('401 tool_auth_required tells how to log in', async () => {
    const res = await bridge.request('/chat/loggedout', { method: 'POST', json: hello });
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('loggedout login');
  });

  it('POST /auth/:toolId returns the auth start result; unknown 404; tools without login 400', async () => {
    const ok = await bridge.request('/auth/loggedout', { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      toolId: 'loggedout',
      status: 'started',
      authenticated: false,
      command: 'loggedout login',
      instructions: expect.stringContaining('loggedout login'),
      output: expect.any(String),
      checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const withBody = await bridge.request('/auth/alpha', { method: 'POST', json: {} });
    expect(withBody.status).toBe(200);
    const unknown = await bridge.request('/auth/nope', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('tool_not_found');
    const noLogin = await bridge.request('/auth/runtime', { method: 'POST' });
    expect(noLogin.status).toBe(400);
    const env = (await noLogin.json()) as { error: { code: string; message: string } };
    expect(env.error).toMatchObject({ code: 'invalid_request' });
    expect(env.error.message).toMatch(/no login/);
  });

  it('GET/PUT /config replaces, validates and applies to the next chat', async () => {
    expect(await (await bridge.request('/config')).json()).toEqual({ config: {} });
    const put = await bridge.request('/config', { method: 'PUT', json: { alphaModel: 'alpha-large', runtimeModel: 'r1' } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ config: { alphaModel: 'alpha-large', runtimeModel: 'r1' } });
    // Keys not given are removed.
    const replaced = await bridge.request('/config', { method: 'PUT', json: { alphaModel: 'alpha-xl' } });
    expect(await replaced.json()).toEqual({ config: { alphaModel: 'alpha-xl' } });
    expect(await (await bridge.request('/config')).json()).toEqual({ config: { alphaModel: 'alpha-xl' } });
    const chat = await bridge.request('/chat/alpha', { method: 'POST', json: hello });
    expect(((await chat.json()) as { model: string }).model).toBe('alpha-xl');

    for (const bad of [{ nope: 1 }, { alphaModel: 3 }, [1]]) {
      const res = await bridge.request('/config', { method: 'PUT', json: bad });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    const empty = await bridge.request('/config', { method: 'PUT', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    // A rejected config leaves the old one in place.
    expect(await (await bridge.request('/config')).json()).toEqual({ config: { alphaModel: 'alpha-xl' } });
    await bridge.request('/config', { method: 'PUT', json: {} });
  });

  it('malformed JSON is 400 invalid_request, never 500', async () => {
    const res = await bridge.request('/chat/alpha', {
      method: 'POST',
      body: '{"messages": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'invalid_request', message: 'request body is not valid JSON', retryable: false } });
  });

  it('unknown routes are 404 and wrong methods 405, in the envelope', async () => {
    const unknown = await bridge.request('/nothing/here');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const wrong = await bridge.request('/discover', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    const getChat = await bridge.request('/chat/alpha');
    expect(getChat.status).toBe(405);
  });

  it('GET /openapi.json publishes the very schemas used for validation', async () => {
    const res = await bridge.request('/openapi.json');
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(pkgVersion);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/approvals',
      '/approvals/{approvalId}',
      '/auth/{toolId}',
      '/chat',
      '/chat/{toolId}',
      '/config',
      '/discover',
      '/health',
      '/health/{toolId}',
      '/mcp',
      '/openapi.json',
      '/queue',
      '/sessions',
      '/sessions/{sessionId}',
      '/sessions/{sessionId}/interrupt',
      '/usage',
      '/usage/windows',
    ]);
    // The MCP endpoint, answered by the MCP SDK's transport beside the route table.
    expect(Object.keys(doc.paths['/mcp'] as object)).toEqual(['post', 'get', 'delete']);
    expect(doc.components.schemas.ToolChatRequest).toEqual(JSON.parse(JSON.stringify(toolChatRequestSchema)));
    expect(doc.components.schemas.FallbackChatRequest).toEqual(JSON.parse(JSON.stringify(fallbackChatRequestSchema)));
    expect(doc.components.schemas.Config).toEqual(bridge.toolbridge.registry.config.jsonSchema);
    expect(Object.keys((doc.components.schemas.Config as { properties: object }).properties)).toContain('alphaModel');
    // The published schema judges bodies exactly as the server does.
    const validate = createAjv({ strict: false }).compile(doc.components.schemas.ToolChatRequest as object);
    expect(validate(hello)).toBe(true);
    expect(validate({ ...hello, timeoutMs: 0 })).toBe(false);
  });

  it('logs one structured line per request, without prompts or answers', async () => {
    bridge.logs.length = 0;
    await (
      await bridge.request('/chat/alpha', { method: 'POST', json: { messages: [{ role: 'user', content: 'TOP-SECRET-PROMPT' }] } })
    ).text();
    await (await bridge.request('/health/nope')).text();
    const text = JSON.stringify(bridge.logs);
    expect(text).not.toContain('TOP-SECRET-PROMPT');
    expect(text).not.toContain('Hello there friend');
    expect(bridge.logs).toEqual([
      expect.objectContaining({
        msg: 'request',
        method: 'POST',
        route: '/chat/:toolId',
        status: 200,
        toolId: 'alpha',
        latencyMs: expect.any(Number),
      }),
      expect.objectContaining({ method: 'GET', route: '/health/:toolId', status: 404, toolId: 'nope', code: 'tool_not_found' }),
    ]);
  });

  it('answers raw HTTP/1.1 requests with a loopback Host', async () => {
    const r = await rawRequest(bridge.url, { path: '/config', headers: { host: `localhost:${bridge.port}` } });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['x-powered-by']).toBeUndefined();
  });
});

describe('health of a hung tool', () => {
  it('is bounded per tool and reported, while the other tools answer', async () => {
    const bridge = await startTestBridge([memoryAdapter('ok'), memoryAdapter('hung', { hangDetect: true })], { healthTimeoutMs: 300 });
    try {
      const res = await bridge.request('/health');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { tools: Array<Record<string, unknown>> };
      expect(body.tools[0]).toMatchObject({ toolId: 'ok', status: 'healthy' });
      expect(body.tools[1]).toMatchObject({ toolId: 'hung', status: 'unavailable', available: false });
      expect(String(body.tools[1]!.reason)).toMatch(/timed out after 300 ms/);
    } finally {
      await bridge.close();
    }
  });
});

describe('timeouts are TimeoutError', () => {
  it('is a 504 with retryable true', async () => {
    const slow = memoryAdapter('slow', { delayMs: 2_000 });
    const bridge = await startTestBridge([slow]);
    try {
      const res = await bridge.request('/chat/slow', { method: 'POST', json: { ...hello, timeoutMs: 50 } });
      expect(res.status).toBe(504);
      const body = (await res.json()) as { error: { code: string; retryable: boolean } };
      expect(body.error).toMatchObject({ code: 'timeout', retryable: true });
      expect(TimeoutError.name).toBe('TimeoutError');
    } finally {
      await bridge.close();
    }
  });
});
