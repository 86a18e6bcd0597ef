import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { QuotaExceededError, RateLimitError, TimeoutError, ToolAuthError, type StreamEvent } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir, pathWith, processesWithEnv, realCliBinDir, waitFor } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from './adapter.js';
import { startMockResponsesServer, type MockResponsesServer } from './testing/mock-responses-server.js';

/**
 * The real, pinned `codex` (installed by `pnpm clis`) driven end to end
 * through the adapter against a mock Responses API on 127.0.0.1.
 */

const TEXT = 'Hello from the mock Responses API';
// Reset times in the future: windows whose reset has passed are (rightly) not reported.
const NOW_S = Math.floor(Date.now() / 1000);
const RESET_5H = NOW_S + 3 * 3600;
const RESET_7D = NOW_S + 5 * 86_400;
const RATE_LIMITS = {
  primary: { usedPercent: 42.5, windowMinutes: 300, resetAt: RESET_5H },
  secondary: { usedPercent: 7, windowMinutes: 10080, resetAt: RESET_7D },
};

let mock: MockResponsesServer;
let registry: ToolRegistry;
let codexHome: string;
let cleanupHome: () => Promise<void>;

beforeAll(async () => {
  const binDir = realCliBinDir('codex');
  mock = await startMockResponsesServer({ kind: 'reply', text: TEXT, rateLimits: RATE_LIMITS });
  const home = await makeTempDir('toolbridge-codex-real-');
  cleanupHome = home.cleanup;
  codexHome = path.join(home.dir, '.codex');
  // Set up as a user would: a custom provider in config.toml whose key comes from an environment variable.
  await mock.writeCodexConfig(codexHome);
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(binDir),
    HOME: home.dir,
    CODEX_HOME: codexHome,
    MOCK_API_KEY: 'dummy',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  // The spawn path (`codex exec`); the warm transport has its own tests (real-codex-warm.test.ts).
  registry = createRegistry({ adapters: [createCodexAdapter({ warm: false })], env });
  registry.config.replace({ codexModel: 'mock-model' });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await cleanupHome?.();
});

/** Live processes started with this test's CODEX_HOME: the codex shim, its binary and anything they spawned. */
const codexLeft = () => processesWithEnv(`CODEX_HOME=${codexHome}`);

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('real codex 0.169.0 against a mock Responses API', () => {
  it('detects the version and the provider’s model; a provider key in the environment is a login `codex login status` does not see', async () => {
    const [tool] = await registry.discover();
    // A custom provider serves what its config names, not OpenAI's catalog.
    expect(tool).toMatchObject({ id: 'codex', available: true, version: '0.169.0', models: ['mock-model'], defaultModel: 'mock-model' });
    const connected = await registry.connect('codex');
    expect(await connected.checkAuth!()).toEqual({
      authenticated: true,
      method: 'env:MOCK_API_KEY',
      detail: `Codex's provider "mock" takes its key from $MOCK_API_KEY`,
    });
  }, 60_000);

  it('chats: the mock’s text and usage, with the prompt sent from stdin to the model', async () => {
    mock.behaviour = { kind: 'reply', text: TEXT, rateLimits: RATE_LIMITS };
    const before = mock.requests.length;
    const result = await registry.chat('codex', ask('PROMPT-MARKER-7731 say hello'), { timeoutMs: 60_000 });
    expect(result.message).toEqual({ role: 'assistant', content: TEXT });
    expect(result.usage).toEqual({
      input_tokens: 1234,
      cached_input_tokens: 1000,
      cache_write_input_tokens: 0,
      output_tokens: 56,
      reasoning_output_tokens: 7,
    });
    expect(result.model).toBe('mock-model');
    expect(result.metadata).toMatchObject({ toolId: 'codex', sandbox: 'read-only', nativeSessionId: expect.any(String) });
    expect(result.sessionId).toMatch(/^tbs_/);
    const sent = mock.requests.slice(before).filter((r) => r.url.startsWith('/v1/responses'));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.at(-1)!.body).toContain('PROMPT-MARKER-7731 say hello');
    expect(sent.at(-1)!.headers.authorization).toBe('Bearer dummy');
    // Nothing of the run is left once the call has returned.
    expect(codexLeft()).toEqual([]);
  }, 120_000);

  it('reports the usage windows the real codex wrote to its session log', async () => {
    const connected = await registry.connect('codex');
    const limits = await connected.usageLimits!();
    expect(limits).toMatchObject({
      status: 'available',
      source: 'local_session',
      windows: {
        five_hour: {
          usedPercentage: 42.5,
          remainingPercentage: 57.5,
          resetsAt: new Date(RESET_5H * 1000).toISOString(),
          windowMinutes: 300,
        },
        seven_day: { usedPercentage: 7, remainingPercentage: 93, resetsAt: new Date(RESET_7D * 1000).toISOString(), windowMinutes: 10080 },
      },
    });
    const health = await registry.health('codex');
    expect(health).toMatchObject({
      status: 'healthy',
      authenticated: true,
      authStatus: 'authenticated',
      authMethod: 'env:MOCK_API_KEY',
      version: '0.169.0',
    });
    expect(health.usageLimits?.windows?.five_hour?.usedPercentage).toBe(42.5);
  }, 60_000);

  it('streams the answer as a delta before the result', async () => {
    mock.behaviour = { kind: 'reply', text: TEXT };
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('codex', ask('stream please'), { timeoutMs: 60_000 })) events.push(e);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e.type === 'delta' ? e.text : ''))
        .join(''),
    ).toBe(TEXT);
    expect(events.at(-1)?.type).toBe('result');
  }, 120_000);

  it('mock 401 → ToolAuthError', async () => {
    mock.behaviour = {
      kind: 'status',
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
    };
    const e = await registry.chat('codex', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', toolId: 'codex' });
    // Nothing of the run is left once the call has returned.
    expect(codexLeft()).toEqual([]);
  }, 120_000);

  it('mock 429 usage_limit_reached → QuotaExceededError with the reset time', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 2 * 3600;
    mock.behaviour = {
      kind: 'status',
      status: 429,
      body: { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: resetsAt } },
    };
    const e = await registry.chat('codex', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'quota_exceeded', httpStatus: 429, retryable: true, toolId: 'codex' });
    // Codex prints the reset to the minute in local time.
    expect(Math.abs((e as QuotaExceededError).resetsAt!.getTime() - resetsAt * 1000)).toBeLessThan(60_000);
    expect(registry.state('codex').coolDownReason).toBe('quota_exceeded');
    // Nothing of the run is left once the call has returned.
    expect(codexLeft()).toEqual([]);
  }, 120_000);

  it('mock 429 rate_limit_exceeded → RateLimitError', async () => {
    mock.behaviour = { kind: 'status', status: 429, body: { error: { type: 'rate_limit_exceeded', message: 'Rate limit reached' } } };
    const e = await registry.chat('codex', ask('hi'), { timeoutMs: 60_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ retryable: true, httpStatus: 429, toolId: 'codex' });
    // Nothing of the run is left once the call has returned.
    expect(codexLeft()).toEqual([]);
  }, 120_000);

  it('a hanging model is ended by the timeout with no codex process left', async () => {
    mock.behaviour = { kind: 'hang' };
    expect(codexLeft()).toEqual([]);
    let seen: number[] = [];
    const pending = registry.chat('codex', ask('hi'), { timeoutMs: 4000 }).catch((x) => x);
    // Make sure the check below is about real processes: codex is running while it waits.
    await waitFor(() => (seen = codexLeft()).length > 0, 4000, 'codex to start');
    const e = await pending;
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ code: 'timeout', httpStatus: 504, toolId: 'codex' });
    expect(seen.length).toBeGreaterThan(0);
    // The deadline answers the caller at once; the kill (SIGTERM, then SIGKILL) follows within seconds.
    await waitFor(() => codexLeft().length === 0, 10_000, 'codex processes to exit');
  }, 120_000);
});
