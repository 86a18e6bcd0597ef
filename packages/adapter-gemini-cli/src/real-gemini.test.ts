import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QuotaExceededError, RateLimitError, TimeoutError, ToolAuthError, type ChatRequest, type StreamEvent } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, pathWith, processesWithEnv, realCliBinDir, waitFor } from '@toolbridge/test-suite/kit';
import { createGeminiCliAdapter } from './adapter.js';
import { API_ERRORS, HELLO, startMockGeminiServer, type MockGeminiServer } from './testing/mock-gemini-server.js';

/**
 * The real, pinned `gemini` (installed by `pnpm clis`) driven end to end through the adapter
 * against a mock Gemini API on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL` with `GEMINI_API_KEY`).
 */

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let mock: MockGeminiServer;
let registry: ToolRegistry;
let home: string;
let cleanupHome: () => Promise<void>;

beforeAll(async () => {
  mock = await startMockGeminiServer();
  const tmp = await makeTempDir('toolbridge-gemini-real-');
  cleanupHome = tmp.cleanup;
  home = tmp.dir;
  await mkdir(path.join(home, '.gemini'));
  // As a user with an API key has it; usage statistics off so nothing but the mock is contacted.
  await writeFile(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(realCliBinDir('gemini')),
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: mock.url,
    GEMINI_API_KEY: 'dummy-key',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  // The spawn path; the warm (ACP) transport has its own tests (real-gemini-warm.test.ts).
  registry = createRegistry({ adapters: [createGeminiCliAdapter({ warm: false })], env });
  registry.config.replace({ geminiModel: 'gemini-2.5-flash' });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await cleanupHome?.();
});

/** Live processes started with this test's HOME: gemini and anything it spawned. */
const geminiLeft = () => processesWithEnv(`HOME=${home}`);
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const sent = (r: { body: any }) => JSON.stringify(r.body.contents);

describe('real gemini 0.61.0 against a mock Gemini API', () => {
  it('detects the version and reads the sign-in state offline', async () => {
    const [tool] = await registry.discover();
    expect(tool).toMatchObject({ id: 'gemini', available: true, version: '0.61.0', defaultModel: 'gemini-2.5-flash' });
    expect(tool!.capabilities).toContain('vision');
    expect(await (await registry.connect('gemini')).checkAuth!()).toEqual({ authenticated: true, method: 'gemini-api-key' });
  }, 60_000);

  it('chats: the mock’s text and usage, the prompt sent from stdin, nothing left running', async () => {
    mock.fallback = HELLO;
    const before = mock.requests.length;
    const result = await registry.chat('gemini', ask('PROMPT-MARKER-5521 say hello'), { timeoutMs: 60_000 });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toEqual({ input_tokens: 20, cached_input_tokens: 5, output_tokens: 7, total_tokens: 29 });
    expect(result.model).toBe('mock-model');
    expect(result.metadata).toMatchObject({ toolId: 'gemini', nativeSessionId: expect.any(String), permissions: { applied: 'read-only' } });
    const requests = mock.requests.slice(before);
    expect(requests.map((r) => r.url)).toEqual(['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse']);
    expect(requests[0]!.headers['x-goog-api-key']).toBe('dummy-key');
    expect(sent(requests[0]!)).toContain('PROMPT-MARKER-5521 say hello');
    // Read-only: the model is not even offered the shell or the file editors.
    const offered = requests[0]!.body.tools.flatMap((t: any) => t.functionDeclarations.map((f: any) => f.name));
    expect(offered).toContain('read_file');
    expect(offered).not.toEqual(expect.arrayContaining(['run_shell_command']));
    expect(offered).not.toEqual(expect.arrayContaining(['write_file']));
    expect(geminiLeft()).toEqual([]);
  }, 120_000);

  it('streams the answer as deltas before the result', async () => {
    mock.fallback = HELLO;
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('gemini', ask('stream please'), { timeoutMs: 60_000 })) events.push(e);
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Hello ', 'from ', 'mock']);
    expect(events.at(-1)?.type).toBe('result');
  }, 120_000);

  it('continues a session natively: the earlier turn reaches the model; a fork does too', async () => {
    mock.fallback = { kind: 'text', chunks: ['The number is 42.'] };
    const first = await registry.chat('gemini', ask('remember FIRST-TURN-8812'), { timeoutMs: 60_000 });
    mock.fallback = { kind: 'text', chunks: ['Still 42.'] };
    const before = mock.requests.length;
    const second = await registry.chat('gemini', ask('what was it?', { sessionId: first.sessionId }), { timeoutMs: 60_000 });
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    const resumed = sent(mock.modelRequests().filter((r) => mock.requests.indexOf(r) >= before)[0]!);
    expect(resumed).toContain('FIRST-TURN-8812');
    expect(resumed).toContain('The number is 42.');
    const forkAt = mock.requests.length;
    const fork = await registry.chat('gemini', ask('and now?', { sessionId: first.sessionId, fork: true }), { timeoutMs: 60_000 });
    expect(fork.sessionId).not.toBe(first.sessionId);
    expect(fork.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    const forked = sent(mock.modelRequests().filter((r) => mock.requests.indexOf(r) >= forkAt)[0]!);
    expect(forked).toContain('FIRST-TURN-8812');
    expect(forked).toContain('and now?');
  }, 180_000);

  it('sends an image to the model', async () => {
    mock.fallback = { kind: 'text', chunks: ['A pixel.'] };
    const before = mock.requests.length;
    const result = await registry.chat(
      'gemini',
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
      { timeoutMs: 60_000 },
    );
    expect(result.message.content).toBe('A pixel.');
    const request = mock.modelRequests().filter((r) => mock.requests.indexOf(r) >= before)[0]!;
    expect(request.body.contents.at(-1).parts).toContainEqual({ inlineData: { data: PNG, mimeType: 'image/png' } });
  }, 120_000);

  it('workspace-write lets the model write a file in the working directory; read-only refuses it', async () => {
    const cwd = await mkdtemp(path.join(home, 'work-'));
    const writeCall = {
      kind: 'call' as const,
      calls: [{ name: 'write_file', args: { file_path: path.join(cwd, 'hello.txt'), content: 'written\n' } }],
    };
    mock.queue.push(writeCall, { kind: 'text', chunks: ['Done.'] });
    const denied = await registry.chat('gemini', ask('write it', { cwd, permissions: 'read-only' }), { timeoutMs: 60_000 });
    expect(existsSync(path.join(cwd, 'hello.txt'))).toBe(false);
    expect(denied.activities).toEqual([expect.objectContaining({ kind: 'file_change', status: 'failed' })]);
    mock.queue.push(writeCall, { kind: 'text', chunks: ['Done.'] });
    const allowed = await registry.chat('gemini', ask('write it', { cwd, permissions: 'workspace-write' }), { timeoutMs: 60_000 });
    expect(allowed.message.content).toBe('Done.');
    expect(allowed.activities).toEqual([
      expect.objectContaining({ kind: 'file_change', status: 'completed', changes: [{ path: 'hello.txt', kind: 'update' }] }),
    ]);
    expect(existsSync(path.join(cwd, 'hello.txt'))).toBe(true);
  }, 180_000);

  it('mock 401 → ToolAuthError', async () => {
    mock.fallback = { kind: 'error', status: 401, body: API_ERRORS[401] };
    const e = await registry.chat('gemini', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', toolId: 'gemini' });
    expect(geminiLeft()).toEqual([]);
  }, 120_000);

  it('mock 429 → RateLimitError with the API’s retry delay, at the first attempt instead of minutes of retries', async () => {
    mock.fallback = { kind: 'error', status: 429, body: API_ERRORS[429] };
    const before = mock.modelRequests().length;
    const e = await registry.chat('gemini', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).not.toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'rate_limited', httpStatus: 429, retryable: true, retryAfterMs: 7000, toolId: 'gemini' });
    expect(mock.modelRequests().length - before).toBe(1);
    await waitFor(() => geminiLeft().length === 0, 10_000, 'gemini to exit');
  }, 120_000);

  it('mock 429 with a daily quota → QuotaExceededError', async () => {
    mock.fallback = { kind: 'error', status: 429, body: API_ERRORS['429-daily'] };
    const e = await registry.chat('gemini', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'quota_exceeded', toolId: 'gemini' });
  }, 120_000);

  it('a hanging model is ended by the timeout with no gemini process left', async () => {
    mock.fallback = { kind: 'hang' };
    expect(geminiLeft()).toEqual([]);
    let seen: number[] = [];
    const pending = registry.chat('gemini', ask('hi'), { timeoutMs: 5000 }).catch((x) => x);
    await waitFor(() => (seen = geminiLeft()).length > 0, 5000, 'gemini to start');
    const e = await pending;
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ code: 'timeout', httpStatus: 504, toolId: 'gemini' });
    expect(seen.length).toBeGreaterThan(0);
    await waitFor(() => geminiLeft().length === 0, 10_000, 'gemini processes to exit');
  }, 120_000);
});
