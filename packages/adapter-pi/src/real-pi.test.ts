import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RateLimitError, ToolAuthError, ProviderExecutionError } from '@toolbridge/core';
import { startRealPi, type RealPi } from './testing/real-pi.js';

/** The real `pi --mode json` (warm off) against the mock: discovery, health, chat, errors. */

const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });
const T = { timeoutMs: 90_000 };

let pi: RealPi;
beforeAll(async () => {
  pi = await startRealPi({
    kind: 'ok',
    chunks: ['Hello ', 'from ', 'mock'],
    usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27, prompt_tokens_details: { cached_tokens: 5 } },
  });
});
afterAll(async () => {
  await pi?.close();
});

describe('real pi 0.73.1 (json mode)', () => {
  it('detects its version and the models Pi lists, and says it is logged in (the mock provider has a key)', async () => {
    const health = await pi.registry.health('pi', { refresh: true, timeoutMs: 90_000 });
    expect(health).toMatchObject({ toolId: 'pi', status: 'healthy', version: '0.73.1', authenticated: true });
    const tools = await pi.registry.discover({ refresh: true });
    const tool = tools.find((t) => t.id === 'pi')!;
    expect(tool.models).toEqual(['mock/mock-model']);
    expect(tool.defaultModel).toBe('mock/mock-model');
  }, 120_000);

  it('streams the answer as deltas, with usage, model and the session; the user dir is never written', async () => {
    const deltas: string[] = [];
    let result;
    for await (const e of pi.registry.stream('pi', say('Say hello'), T)) {
      if (e.type === 'delta') deltas.push(e.text);
      if (e.type === 'result') result = e.result;
    }
    expect(deltas).toEqual(['Hello ', 'from ', 'mock']);
    expect(result).toMatchObject({
      message: { content: 'Hello from mock' },
      model: 'mock/mock-model',
      usage: { input_tokens: 15, cache_read_input_tokens: 5, output_tokens: 7 },
      metadata: { transport: 'spawn', nativeSessionId: expect.any(String), permissions: { applied: 'read-only' } },
    });
    const body = pi.mock.requests.at(-1)!.body as Record<string, unknown>;
    expect(body.model).toBe('mock-model');
    // Pi wrote its settings, sessions and extension into Toolbridge's runtime directory, not the user's.
    expect((await readdir(pi.userDir)).sort()).toEqual(['models.json']);
  }, 120_000);

  it('classifies provider failures though pi exits 0: 401 auth, 429 rate limit, 500 provider error', async () => {
    const cases: Array<[number, unknown]> = [
      [401, ToolAuthError],
      [429, RateLimitError],
      [500, ProviderExecutionError],
    ];
    for (const [status, type] of cases) {
      pi.mock.behaviour = { kind: 'error', status, message: `mock failure ${status}. Please try again in 20s.`, type: 'x' };
      const before = pi.mock.requests.length;
      const err = await pi.registry.chat('pi', say('fail please'), T).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(type as never);
      expect((err as Error).message).toContain(`mock failure ${status}`);
      // Pi's own retries are off (settings.json of the runtime directory): one request per chat.
      expect(pi.mock.requests.length - before).toBe(1);
      if (status === 429) expect((err as RateLimitError).retryAfterMs).toBe(20_000);
    }
  }, 300_000);
});
