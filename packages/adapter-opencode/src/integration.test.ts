import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RateLimitError, TimeoutError, ToolAuthError, type StreamEvent, type ToolbridgeConfig } from '@toolbridge/core';
import { createRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, waitFor } from '@toolbridge/test-suite/kit';
import { createOpenCodeAdapter } from './index.js';
import { realOpenCodeEnv } from './testing/real-opencode.js';
import { MOCK_OK, startMockOpenAIServer, type MockBehaviour, type MockOpenAIServer } from './testing/mock-openai-server.js';

/**
 * The real, pinned `opencode` (1.18.33) against a mock OpenAI-compatible
 * server on 127.0.0.1, with a throwaway HOME and XDG dirs. The HOME is shared
 * by the tests of this file: a cold one costs opencode several seconds of
 * first-run setup per command, more on a busy machine.
 */

let tmp: { dir: string; cleanup(): Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('toolbridge-opencode-it-');
});
afterAll(async () => {
  await tmp.cleanup();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// Bounds for a loaded 2-core CI machine; a warm opencode needs 1-4 s per command.
const SLOW = 60_000;

interface Setup {
  mock: MockOpenAIServer;
  home: string;
  env: NodeJS.ProcessEnv;
  registry: ReturnType<typeof createRegistry>;
}

// These tests are about `opencode run` (the spawn path): warmIdleMs 0. The warm transport has its own (real-opencode-warm*.test.ts).
async function setup(
  behaviour: MockBehaviour = MOCK_OK,
  config: ToolbridgeConfig = { opencodeModel: 'mock/mock-model', warmIdleMs: 0 },
): Promise<Setup> {
  const mock = await startMockOpenAIServer(behaviour);
  cleanups.push(() => mock.close());
  const home = path.join(tmp.dir, 'home');
  const env = realOpenCodeEnv(home, mock.baseURL, tmp.dir);
  const registry = createRegistry({
    adapters: [createOpenCodeAdapter({ versionTimeoutMs: SLOW, modelsTimeoutMs: SLOW, authTimeoutMs: SLOW })],
    env,
    detectTimeoutMs: SLOW,
    healthTimeoutMs: SLOW,
  });
  registry.config.replace(config);
  cleanups.push(() => registry.close());
  return { mock, home, env, registry };
}

const hello = { messages: [{ role: 'user' as const, content: 'Say hello (integration)' }] };

/** Pids of processes whose environment names this HOME: the opencode runs of one test. */
function processesWithHome(home: string): number[] {
  const marker = `\0HOME=${home}\0`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (('\0' + readFileSync(`/proc/${name}/environ`, 'latin1')).includes(marker)) pids.push(Number(name));
    } catch {
      // Gone, or not ours.
    }
  }
  return pids;
}

const mainRequests = (mock: MockOpenAIServer) => mock.requests.filter((r) => !r.title);

describe('real opencode against a mock model server', () => {
  it('discovers the version and lists the mock model', async () => {
    const { registry } = await setup();
    const [tool] = await registry.discover();
    expect(tool).toMatchObject({ id: 'opencode', available: true, version: '1.18.33', defaultModel: 'mock/mock-model' });
    expect(tool!.models).toContain('mock/mock-model');
    expect(tool!.models).toContain('opencode/big-pickle');
    // Listed by opencode itself, not only added as the configured default.
    expect(tool!.models.indexOf('mock/mock-model')).toBeGreaterThan(0);
  }, 120_000);

  it('chats: the mock answer, its token usage, the prompt sent from stdin', async () => {
    const { registry, mock } = await setup();
    const result = await registry.chat('opencode', hello, { timeoutMs: SLOW });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.model).toBe('mock/mock-model');
    expect(result.usage).toEqual({
      input_tokens: 20,
      cached_input_tokens: 5,
      cache_write_input_tokens: 0,
      output_tokens: 7,
      reasoning_output_tokens: 2,
      total_tokens: 27,
    });
    expect(result.metadata).toMatchObject({ toolId: 'opencode', steps: 1, finishReason: 'stop' });
    const main = mainRequests(mock);
    expect(main).toHaveLength(1);
    expect(main[0]!.body.model).toBe('mock-model');
    expect(main[0]!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'Say hello (integration)' });
  }, 120_000);

  it('streams deltas that add up to the answer', async () => {
    const { registry } = await setup();
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('opencode', hello, { timeoutMs: SLOW })) events.push(e);
    expect(events.at(-1)?.type).toBe('result');
    const text = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
    expect(text).toBe('Hello from mock');
  }, 120_000);

  it('maps a 401 from the provider to ToolAuthError', async () => {
    const { registry } = await setup({
      kind: 'error',
      status: 401,
      message: 'Invalid API key',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    });
    const error = await registry.chat('opencode', hello, { timeoutMs: SLOW }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolAuthError);
    expect(error).toMatchObject({ toolId: 'opencode', details: { statusCode: 401 } });
    expect((error as Error).message).toContain('Invalid API key');
  }, 120_000);

  it('maps a 429 (after opencode gives up retrying) to RateLimitError with Retry-After', async () => {
    const { registry, mock } = await setup({
      kind: 'error',
      status: 429,
      message: 'Rate limit reached',
      type: 'rate_limit_error',
      headers: { 'retry-after': '0' },
    });
    const error = await registry.chat('opencode', hello, { timeoutMs: SLOW }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ toolId: 'opencode', retryable: true, retryAfterMs: 0, details: { statusCode: 429 } });
    // OpenCode retries a 429 itself before it reports it.
    expect(mainRequests(mock).length).toBeGreaterThan(1);
  }, 120_000);

  it('reports login state from the real `opencode auth list`', async () => {
    const { registry } = await setup();
    const tool = await registry.connect('opencode');
    expect(await tool.checkAuth!()).toMatchObject({ authenticated: true, method: 'config' });
    registry.config.replace({ opencodeModel: 'anthropic/claude-sonnet-4-5' });
    const health = await registry.health('opencode');
    expect(health).toMatchObject({ available: true, authenticated: false, authStatus: 'unauthenticated', version: '1.18.33' });
    expect(health.reason).toContain('"anthropic"');
  }, 120_000);

  it('times out a model that never answers and leaves no opencode process', async () => {
    const { registry, mock, home } = await setup({ kind: 'hang' });
    // opencode's start-up time varies with machine load, so the deadline fires the moment it is
    // waiting on the model: the same abort-with-TimeoutError a `timeoutMs` deadline causes.
    const deadline = new AbortController();
    const pending = registry.chat('opencode', hello, { signal: deadline.signal, timeoutMs: SLOW }).catch((e: unknown) => e);
    await waitFor(() => mainRequests(mock).length > 0, SLOW, 'opencode to call the model');
    expect(processesWithHome(home).length).toBeGreaterThan(0);
    deadline.abort(new TimeoutError('OpenCode chat timed out (test deadline)', { toolId: 'opencode' }));
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ toolId: 'opencode', httpStatus: 504 });
    await waitFor(() => processesWithHome(home).length === 0, 10_000, 'opencode processes to exit');
  }, 120_000);
});
