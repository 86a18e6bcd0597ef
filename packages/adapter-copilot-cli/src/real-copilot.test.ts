import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RateLimitError, TimeoutError, ToolAuthError, type CallContext, type ChatRequest, type StreamEvent } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { cliCacheDir, makeTempDir, pathWith, processesWithEnv, REAL_CLIS, realCliBinDir, waitFor } from '@toolbridge/test-suite/kit';
import { createCopilotCliAdapter } from './adapter.js';
import { API_ERRORS, DEVICE_CODE, HELLO, startMockOpenAIServer, type MockOpenAIServer } from './testing/mock-openai-server.js';

/**
 * The real, pinned `copilot` (installed by `pnpm clis`; the adapter runs its native executable)
 * driven end to end through the adapter, in bring-your-own-model mode against an OpenAI-style
 * mock on 127.0.0.1 (`COPILOT_PROVIDER_BASE_URL`, `COPILOT_OFFLINE=true`: nothing else is contacted).
 */

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let mock: MockOpenAIServer;
let registry: ToolRegistry;
let home: string;
let baseEnv: NodeJS.ProcessEnv;
let cleanupHome: () => Promise<void>;

beforeAll(async () => {
  mock = await startMockOpenAIServer();
  const tmp = await makeTempDir('toolbridge-copilot-real-');
  cleanupHome = tmp.cleanup;
  home = tmp.dir;
  baseEnv = {
    PATH: pathWith(realCliBinDir('copilot')),
    HOME: home,
    // Copilot unpacks its package (~235 MB) on first run per cache directory: one for all test runs.
    COPILOT_PKG_CACHE_HOME: path.join(cliCacheDir(), `copilot-pkg-cache@${REAL_CLIS.copilot.version}`),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  const env = { ...baseEnv, COPILOT_PROVIDER_BASE_URL: mock.baseURL, COPILOT_OFFLINE: 'true' };
  // The spawn path; the warm (ACP) transport has its own tests (real-copilot-warm.test.ts).
  registry = createRegistry({ adapters: [createCopilotCliAdapter({ warm: false })], env });
  // No COPILOT_MODEL: the model reaches Copilot as --model.
  registry.config.replace({ copilotModel: 'mock-model' });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await cleanupHome?.();
});

/** Live processes started with this test's HOME: copilot and anything it spawned. */
const copilotLeft = () => processesWithEnv(`HOME=${home}`);
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const chatsSince = (n: number) => mock.chatRequests().slice(n);

describe('real copilot 1.0.102 against an OpenAI-style mock (BYOK)', () => {
  it('detects the version and reads the sign-in state offline', async () => {
    const [tool] = await registry.discover();
    expect(tool).toMatchObject({ id: 'copilot', available: true, version: '1.0.102', models: ['mock-model'], defaultModel: 'mock-model' });
    expect(await (await registry.connect('copilot')).checkAuth!()).toMatchObject({ authenticated: true, method: 'byok' });
  }, 60_000);

  it('chats: the mock’s text, token usage from the report, the prompt from stdin, nothing left running', async () => {
    mock.fallback = HELLO;
    const before = mock.chatRequests().length;
    const result = await registry.chat('copilot', ask('PROMPT-MARKER-9034 say hello'), { timeoutMs: 90_000 });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toEqual({
      input_tokens: 20,
      output_tokens: 7,
      cached_input_tokens: 5,
      cache_write_input_tokens: 0,
      reasoning_output_tokens: 2,
    });
    expect(result.model).toBe('mock-model');
    expect(result.metadata).toMatchObject({
      toolId: 'copilot',
      nativeSessionId: expect.any(String),
      permissions: { applied: 'read-only' },
    });
    const [request] = chatsSince(before);
    expect(request!.body.model).toBe('mock-model');
    expect(JSON.stringify(request!.body.messages.at(-1))).toContain('PROMPT-MARKER-9034 say hello');
    expect(copilotLeft()).toEqual([]);
  }, 120_000);

  it('streams the answer as deltas before the result', async () => {
    mock.fallback = HELLO;
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('copilot', ask('stream please'), { timeoutMs: 90_000 })) events.push(e);
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Hello ', 'from ', 'mock']);
    expect(events.at(-1)?.type).toBe('result');
  }, 120_000);

  it('continues a session natively: the earlier turn reaches the model', async () => {
    mock.fallback = { kind: 'text', chunks: ['The number is 42.'] };
    const first = await registry.chat('copilot', ask('remember FIRST-TURN-3317'), { timeoutMs: 90_000 });
    mock.fallback = { kind: 'text', chunks: ['Still 42.'] };
    const before = mock.chatRequests().length;
    const second = await registry.chat('copilot', ask('what was it?', { sessionId: first.sessionId }), { timeoutMs: 90_000 });
    expect(second.message.content).toBe('Still 42.');
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    const sent = JSON.stringify(chatsSince(before)[0]!.body.messages);
    expect(sent).toContain('FIRST-TURN-3317');
    expect(sent).toContain('The number is 42.');
  }, 180_000);

  it('sends an image to the model', async () => {
    mock.fallback = { kind: 'text', chunks: ['A pixel.'] };
    const before = mock.chatRequests().length;
    const result = await registry.chat(
      'copilot',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image', mediaType: 'image/png', data: PNG },
            ],
          },
        ],
      },
      { timeoutMs: 90_000 },
    );
    expect(result.message.content).toBe('A pixel.');
    const content = chatsSince(before)[0]!.body.messages.at(-1).content;
    expect(content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } });
  }, 120_000);

  it('workspace-write lets the model create a file in the working directory; read-only refuses it', async () => {
    const cwd = await mkdtemp(path.join(home, 'work-'));
    const create = {
      kind: 'call' as const,
      calls: [{ name: 'create', args: { path: path.join(cwd, 'hello.txt'), file_text: 'written\n' } }],
    };
    mock.queue.push(create, { kind: 'text', chunks: ['Done.'] });
    const denied = await registry.chat('copilot', ask('write it', { cwd }), { timeoutMs: 90_000 });
    expect(existsSync(path.join(cwd, 'hello.txt'))).toBe(false);
    expect(denied.activities).toEqual([expect.objectContaining({ kind: 'file_change', status: 'failed' })]);
    mock.queue.push(create, { kind: 'text', chunks: ['Done.'] });
    const allowed = await registry.chat('copilot', ask('write it', { cwd, permissions: 'workspace-write' }), { timeoutMs: 90_000 });
    expect(allowed.activities).toEqual([
      expect.objectContaining({ kind: 'file_change', status: 'completed', changes: [{ path: 'hello.txt', kind: 'add' }] }),
    ]);
    expect(existsSync(path.join(cwd, 'hello.txt'))).toBe(true);
  }, 180_000);

  it('mock 401 → ToolAuthError at Copilot’s first retry', async () => {
    mock.fallback = { kind: 'error', status: 401, body: API_ERRORS[401] };
    const before = mock.chatRequests().length;
    const e = await registry.chat('copilot', ask('hi'), { timeoutMs: 90_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', toolId: 'copilot' });
    // Copilot makes 3 calls on its own; the retry it announces may already be on its way when the run ends.
    expect(chatsSince(before).length).toBeLessThanOrEqual(2);
    await waitFor(() => copilotLeft().length === 0, 10_000, 'copilot to exit');
  }, 120_000);

  it('mock 429 → RateLimitError with the wait the provider named, at Copilot’s first retry', async () => {
    mock.fallback = { kind: 'error', status: 429, body: API_ERRORS[429], headers: { 'retry-after': '3' } };
    const before = mock.chatRequests().length;
    const e = await registry.chat('copilot', ask('hi'), { timeoutMs: 90_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ code: 'rate_limited', httpStatus: 429, retryable: true, retryAfterMs: 3000, toolId: 'copilot' });
    // Copilot makes 6 calls over ~18 s on its own.
    expect(chatsSince(before).length).toBeLessThanOrEqual(2);
    await waitFor(() => copilotLeft().length === 0, 10_000, 'copilot to exit');
  }, 120_000);

  it('a hanging model is ended by the timeout with no copilot process left', async () => {
    mock.fallback = { kind: 'hang' };
    expect(copilotLeft()).toEqual([]);
    let seen: number[] = [];
    const pending = registry.chat('copilot', ask('hi'), { timeoutMs: 6000 }).catch((x) => x);
    await waitFor(() => (seen = copilotLeft()).length > 0, 6000, 'copilot to start');
    const e = await pending;
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ code: 'timeout', httpStatus: 504, toolId: 'copilot' });
    expect(seen.length).toBeGreaterThan(0);
    await waitFor(() => copilotLeft().length === 0, 10_000, 'copilot processes to exit');
  }, 120_000);
});

describe('real copilot login (device flow against a mock github.com)', () => {
  it('relays the URL and device code, then reads the stored login; nothing is left running', async () => {
    const loginHome = await mkdtemp(path.join(home, 'login-'));
    // No system keychain here: without this Copilot discards the token it was given.
    await mkdir(path.join(loginHome, '.copilot'));
    await writeFile(path.join(loginHome, '.copilot', 'settings.json'), JSON.stringify({ storeTokenPlaintext: true }));
    const adapter = createCopilotCliAdapter({ loginArgs: ['--host', mock.url] });
    const ctx: CallContext = { config: {}, env: { ...baseEnv, HOME: loginHome }, signal: AbortSignal.timeout(60_000) };
    try {
      expect(await adapter.checkAuth!(ctx)).toMatchObject({ authenticated: false });
      mock.pendingPolls = 2;
      const started = await adapter.startAuth!(ctx);
      expect(started).toMatchObject({ status: 'started', url: `${mock.url}/login/device`, command: `copilot login --host ${mock.url}` });
      expect(started.instructions).toContain(`enter the code ${DEVICE_CODE}`);
      // The user enters the code; Copilot's next polls get the token, it saves it and exits.
      await waitFor(async () => (await adapter.checkAuth!(ctx)).authenticated, 30_000, 'the login to finish');
      expect(await adapter.checkAuth!(ctx)).toMatchObject({
        authenticated: true,
        method: 'github',
        detail: expect.stringContaining('mock-user'),
      });
    } finally {
      // Also when an assertion failed: an open login would otherwise run until its TTL.
      await adapter.dispose!();
    }
    await waitFor(() => processesWithEnv(`HOME=${loginHome}`).length === 0, 10_000, 'copilot login to exit');
  }, 120_000);

  it('an abandoned login is ended by dispose', async () => {
    const loginHome = await mkdtemp(path.join(home, 'login-'));
    const adapter = createCopilotCliAdapter({ loginArgs: ['--host', mock.url] });
    mock.pendingPolls = Infinity;
    try {
      const started = await adapter.startAuth!({ config: {}, env: { ...baseEnv, HOME: loginHome }, signal: AbortSignal.timeout(60_000) });
      expect(started.status).toBe('started');
      expect(processesWithEnv(`HOME=${loginHome}`).length).toBeGreaterThan(0);
    } finally {
      await adapter.dispose!();
    }
    await waitFor(() => processesWithEnv(`HOME=${loginHome}`).length === 0, 10_000, 'copilot login to exit');
  }, 120_000);
});
