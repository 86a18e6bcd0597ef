import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createToolbridge } from 'toolbridge';
import { readSse, type TestBridge } from './testing/harness.js';
import { FAKE_CLIS, makeFakeMachine, type FakeMachine } from 'toolbridge/testing';
import { startServer } from './server.js';
import type { RequestLogEntry } from './logger.js';

/**
 * The bridge over the seven real adapters: fake `codex`, `claude`, `opencode`,
 * `gemini`, `copilot` and `pi` executables on PATH replaying the real tools'
 * recorded output, and an in-test Ollama server.
 */
const hello = { messages: [{ role: 'user', content: 'Say hello' }] };

describe('bridge over the real adapters', () => {
  let machine: FakeMachine;
  let bridge: TestBridge;
  const logs: RequestLogEntry[] = [];

  beforeAll(async () => {
    machine = await makeFakeMachine();
    const toolbridge = createToolbridge({ env: machine.env, config: { ollamaModel: 'llama3.2:1b' }, discoveryTtlMs: 0 });
    const running = await startServer({ port: 0, toolbridge, logger: (e) => logs.push(e) });
    bridge = {
      ...running,
      toolbridge,
      logs,
      request: (p, init = {}) => {
        const { json, ...rest } = init;
        return fetch(running.url + p, {
          ...rest,
          ...(json !== undefined
            ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...(rest.headers as object) } }
            : {}),
        });
      },
    };
  });
  afterEach(async () => {
    for (const bin of FAKE_CLIS) await machine.setMode(bin, 'ok');
  });
  afterAll(async () => {
    await bridge.close();
    await machine.cleanup();
  });

  it('GET /discover finds all seven tools with their versions', async () => {
    const res = await bridge.request('/discover');
    expect(res.status).toBe(200);
    const { tools } = (await res.json()) as { tools: Array<{ id: string; available: boolean; version?: string; type: string }> };
    expect(tools.map((t) => [t.id, t.type, t.available])).toEqual([
      ['codex', 'agent', true],
      ['claude-code', 'agent', true],
      ['opencode', 'agent', true],
      ['gemini', 'agent', true],
      ['copilot', 'agent', true],
      ['pi', 'agent', true],
      ['qwen-code', 'agent', true],
      ['ollama', 'runtime', true],
    ]);
    expect(tools.find((t) => t.id === 'codex')!.version).toContain('0.169.0');
    expect(tools.find((t) => t.id === 'ollama')!.version).toContain('0.9.0');
  });

  it('GET /health reports auth per tool; Ollama has no login', async () => {
    await machine.setMode('claude', 'logged_out');
    const res = await bridge.request('/health');
    const body = (await res.json()) as { status: string; tools: Array<Record<string, unknown>> };
    expect(body.status).toBe('ok');
    const byId = Object.fromEntries(body.tools.map((t) => [t.toolId, t]));
    expect(byId.codex).toMatchObject({ status: 'healthy', authSupported: true, authenticated: true, authStatus: 'authenticated' });
    expect(byId['claude-code']).toMatchObject({ authSupported: true, authenticated: false, authStatus: 'unauthenticated' });
    expect(byId.ollama).toMatchObject({ status: 'healthy', authSupported: false });
  });

  it('POST /chat/codex answers from the replayed Codex run, prompt on stdin', async () => {
    const res = await bridge.request('/chat/codex', { method: 'POST', json: { messages: [{ role: 'user', content: 'PROMPT-ON-STDIN' }] } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      toolId: string;
      type: string;
      result: { message: { content: string }; usage: Record<string, number> };
    };
    expect(body).toMatchObject({ toolId: 'codex', type: 'agent', result: { message: { role: 'assistant', content: 'Hello from mock' } } });
    expect(body.result.usage).toMatchObject({ input_tokens: 1234, output_tokens: 56 });
    const run = (await machine.runs('codex')).filter((r) => r.argv[0] === 'exec').at(-1)!;
    expect(run.stdin).toContain('PROMPT-ON-STDIN');
    expect(run.argv.join(' ')).not.toContain('PROMPT-ON-STDIN');
  });

  it('PUT /config applies to the next chat: codexModel reaches the argv', async () => {
    expect(
      (await bridge.request('/config', { method: 'PUT', json: { codexModel: 'gpt-test-model', ollamaModel: 'llama3.2:1b' } })).status,
    ).toBe(200);
    await (await bridge.request('/chat/codex', { method: 'POST', json: hello })).text();
    const argv = (await machine.runs('codex')).filter((r) => r.argv[0] === 'exec').at(-1)!.argv;
    expect(argv).toContain('gpt-test-model');
    const bad = await bridge.request('/config', { method: 'PUT', json: { codexSandbox: 'yolo' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('codexSandbox');
    await bridge.request('/config', { method: 'PUT', json: { ollamaModel: 'llama3.2:1b' } });
  });

  it('without a token no config reaches full: PUT /config asking for it is narrowed to workspace-write, and the answer says so', async () => {
    for (const config of [{ codexSandbox: 'danger-full-access' }, { permissions: 'full' }]) {
      expect((await bridge.request('/config', { method: 'PUT', json: { ...config, ollamaModel: 'llama3.2:1b' } })).status).toBe(200);
      const body = (await (await bridge.request('/chat/codex', { method: 'POST', json: hello })).json()) as {
        result: { metadata: { permissions: { requested: string; applied: string; note: string } } };
      };
      const argv = (await machine.runs('codex')).filter((r) => r.argv[0] === 'exec').at(-1)!.argv;
      expect(argv[argv.indexOf('--sandbox') + 1]).toBe('workspace-write');
      expect(body.result.metadata.permissions).toMatchObject({ requested: 'full', applied: 'workspace-write' });
      expect(body.result.metadata.permissions.note).toMatch(/full is above this call's limit \(maxPermissions workspace-write/);
    }
    await bridge.request('/config', { method: 'PUT', json: { ollamaModel: 'llama3.2:1b' } });
  });

  it('POST /chat/claude-code when logged out is 401 tool_auth_required', async () => {
    await machine.setMode('claude', 'logged_out');
    const res = await bridge.request('/chat/claude-code', { method: 'POST', json: hello });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('tool_auth_required');
  });

  it('POST /chat/opencode answers; a rate-limited run (recorded 429) is 429 rate_limited in the envelope', async () => {
    const ok = await bridge.request('/chat/opencode', { method: 'POST', json: hello });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ toolId: 'opencode', result: { message: { content: 'Hello from mock' } } });
    await machine.setMode('opencode', 'fail');
    const failed = await bridge.request('/chat/opencode', { method: 'POST', json: hello });
    expect(failed.status).toBe(429);
    expect(await failed.json()).toMatchObject({ error: { code: 'rate_limited', toolId: 'opencode', retryable: true } });
  });

  it('Gemini CLI and Copilot CLI: /v1/models lists them, they chat natively and over /v1, a recorded 429 is rate_limited', async () => {
    const models = (await (await bridge.request('/v1/models')).json()) as { data: Array<{ id: string; owned_by: string }> };
    const ids = models.data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gemini', 'gemini/auto', 'copilot']));
    expect(models.data.filter((m) => m.owned_by === 'gemini').map((m) => m.id)).toEqual([
      'gemini',
      'gemini/auto',
      'gemini/pro',
      'gemini/flash',
      'gemini/flash-lite',
    ]);
    for (const toolId of ['gemini', 'copilot']) {
      const res = await bridge.request(`/chat/${toolId}`, { method: 'POST', json: hello });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { usage: Record<string, number>; metadata: Record<string, unknown> } };
      expect(body).toMatchObject({
        toolId,
        type: 'agent',
        result: { message: { content: 'Hello from mock' }, metadata: { permissions: { applied: 'read-only' } } },
      });
      expect(body.result.usage).toMatchObject({ input_tokens: 20, output_tokens: 7 });
      const v1 = await bridge.request('/v1/chat/completions', { method: 'POST', json: { model: toolId, messages: hello.messages } });
      expect(((await v1.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(
        'Hello from mock',
      );
    }
    const gemini = (await machine.runs('gemini')).at(-1)!;
    expect(gemini.stdin).toBe('Say hello');
    expect(gemini.argv.join(' ')).not.toContain('Say hello');
    await machine.setMode('gemini', 'fail');
    await machine.setMode('copilot', 'fail');
    for (const toolId of ['gemini', 'copilot']) {
      const failed = await bridge.request(`/chat/${toolId}`, { method: 'POST', json: hello });
      expect(failed.status).toBe(429);
      expect(await failed.json()).toMatchObject({ error: { code: 'rate_limited', toolId, retryable: true } });
    }
  });

  it('Pi: /v1/models lists its models, it chats natively and over /v1 (json mode: the fake has no RPC), a recorded 429 is rate_limited', async () => {
    const models = (await (await bridge.request('/v1/models')).json()) as { data: Array<{ id: string; owned_by: string }> };
    expect(models.data.filter((m) => m.owned_by === 'pi').map((m) => m.id)).toEqual(['pi', 'pi/mock/mock-model']);
    const res = await bridge.request('/chat/pi', { method: 'POST', json: hello });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { usage: Record<string, number>; metadata: Record<string, unknown> } };
    expect(body).toMatchObject({
      toolId: 'pi',
      result: { message: { content: 'Hello from mock' }, metadata: { transport: 'spawn', permissions: { applied: 'read-only' } } },
    });
    expect(body.result.usage).toMatchObject({ input_tokens: 15, cache_read_input_tokens: 5, output_tokens: 7 });
    const v1 = await bridge.request('/v1/chat/completions', { method: 'POST', json: { model: 'pi', messages: hello.messages } });
    expect(((await v1.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('Hello from mock');
    const run = (await machine.runs('pi')).at(-1)!;
    expect(run.stdin).toBe('Say hello');
    expect(run.argv.join(' ')).not.toContain('Say hello');
    await machine.setMode('pi', 'fail');
    const failed = await bridge.request('/chat/pi', { method: 'POST', json: hello });
    expect(failed.status).toBe(429);
    expect(await failed.json()).toMatchObject({ error: { code: 'rate_limited', toolId: 'pi', retryable: true } });
  });

  it('POST /auth: Gemini CLI and Copilot CLI, already signed in, start nothing', async () => {
    for (const [toolId, command] of [
      ['gemini', 'gemini'],
      ['copilot', 'copilot login'],
    ] as const) {
      const res = await bridge.request(`/auth/${toolId}`, { method: 'POST', json: { timeoutMs: 10_000 } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ toolId, status: 'already_authenticated', authenticated: true, command });
    }
    expect((await machine.runs('copilot')).filter((r) => r.argv[0] === 'login')).toEqual([]);
  });

  it('POST /chat/ollama answers from the in-test server, and streams deltas over SSE', async () => {
    const res = await bridge.request('/chat/ollama', { method: 'POST', json: hello });
    expect(await res.json()).toMatchObject({
      toolId: 'ollama',
      type: 'runtime',
      model: 'llama3.2:1b',
      result: { message: { content: 'Hello from ollama' } },
    });
    const streamed = await bridge.request('/chat/ollama', { method: 'POST', json: { ...hello, stream: true } });
    const events = await readSse(streamed);
    expect(
      events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { text: string }).text)
        .join(''),
    ).toBe('Hello from ollama');
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { toolId: 'ollama', result: { message: { content: 'Hello from ollama' } } },
    });
  });

  it('a timed-out chat is 504 and the tool process is gone', async () => {
    await machine.setMode('codex', 'hang');
    const res = await bridge.request('/chat/codex', { method: 'POST', json: { ...hello, timeoutMs: 500 } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('timeout');
    const pids = (await machine.runs('codex')).filter((r) => r.mode === 'hang').map((r) => r.pid);
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
  });

  it('POST /chat falls back from a logged-out Claude Code to Codex, with attempts', async () => {
    await machine.setMode('claude', 'logged_out');
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['claude-code', 'codex'], ...hello } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { toolId: string; fallbackUsed: boolean; attempts: Array<{ toolId: string; outcome: string }> };
    expect(body.toolId).toBe('codex');
    expect(body.fallbackUsed).toBe(true);
    expect(body.attempts[0]).toMatchObject({ toolId: 'claude-code', outcome: expect.stringMatching(/failed|skipped/) });
    expect(body.attempts.at(-1)).toMatchObject({ toolId: 'codex', outcome: 'succeeded' });
  });

  it('streamed fallback from a failing Codex to Ollama, done carries attempts', async () => {
    await machine.setMode('codex', 'fail');
    const res = await bridge.request('/chat', { method: 'POST', json: { providers: ['codex', 'ollama'], ...hello, stream: true } });
    const events = await readSse(res);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({ toolId: 'ollama', fallbackUsed: true });
    expect(events.some((e) => e.event === 'attempt' && (e.data as { toolId: string }).toolId === 'codex')).toBe(true);
  });

  it('a client that drops a Codex stream kills the codex process', async () => {
    await machine.setMode('codex', 'slow');
    const controller = new AbortController();
    const res = await bridge.request('/chat/codex', { method: 'POST', json: { ...hello, stream: true }, signal: controller.signal });
    expect(res.status).toBe(200);
    await waitFor(async () => (await machine.runs('codex')).some((r) => r.mode === 'slow'), 5_000, 'codex to start');
    const pids = (await machine.runs('codex')).filter((r) => r.mode === 'slow').map((r) => r.pid);
    controller.abort();
    expect(await waitForPidsGone(pids, 8_000)).toEqual([]);
  });

  it('POST /auth: Ollama has no login (400), Codex starts its login flow', async () => {
    const ollama = await bridge.request('/auth/ollama', { method: 'POST' });
    expect(ollama.status).toBe(400);
    expect(((await ollama.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/login/i),
    });
    const codex = await bridge.request('/auth/codex', { method: 'POST', json: { timeoutMs: 10_000 } });
    const body = (await codex.json()) as Record<string, unknown>;
    expect(codex.status).toBe(200);
    expect(body).toMatchObject({ toolId: 'codex', command: expect.stringContaining('codex login'), checkedAt: expect.any(String) });
    expect(['started', 'already_authenticated']).toContain(body.status);
  });
});
