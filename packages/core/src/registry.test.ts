import { describe, expect, it } from '@jest/globals';
import type { CallContext, StreamEvent, ToolAdapter } from './adapter.js';
import {
  AbortedError,
  InvalidRequestError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  ToolNotFoundError,
  ToolUnavailableError,
} from './errors.js';
import { createRegistry } from './registry.js';
import { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES } from './types.js';
import { textOf } from './request.js';
import { streamFrom, waitFor } from '@toolbridge/test-suite/kit';

function memoryAdapter(
  id: string,
  overrides: Partial<ToolAdapter> & { detectDelayMs?: number; chat?: Parameters<typeof streamFrom>[0] } = {},
) {
  const calls = { detect: 0, chat: 0, checkAuth: 0 };
  const adapter: ToolAdapter = {
    specificationVersion: 'v1',
    id,
    name: id.toUpperCase(),
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    configSchema: { [`${id}Model`]: { type: 'string' } },
    async detect(ctx: CallContext) {
      calls.detect++;
      if (overrides.detectDelayMs) await new Promise((r) => setTimeout(r, overrides.detectDelayMs));
      const model = ctx.config[`${id}Model`] as string | undefined;
      return { available: true, version: '1.0.0', models: model ? [model] : [], defaultModel: model };
    },
    async checkAuth() {
      calls.checkAuth++;
      return { authenticated: true, method: 'api_key' };
    },
    async startAuth() {
      return {
        toolId: id,
        status: 'started',
        authenticated: false,
        command: `${id} login`,
        instructions: '',
        output: '',
        checkedAt: new Date().toISOString(),
      };
    },
    features: {},
    stream: overrides.chat
      ? streamFrom(async (req, ctx) => {
          calls.chat++;
          return overrides.chat!(req, ctx);
        })
      : async function* (req): AsyncIterable<StreamEvent> {
          calls.chat++;
          yield { type: 'delta', text: 'echo' };
          yield {
            type: 'result',
            result: {
              message: { role: 'assistant', content: `echo: ${textOf(req.messages.at(-1)!)}` },
              usage: { input_tokens: 1 },
              metadata: {},
            },
          };
        },
    ...overrides,
  };
  return { adapter, calls };
}

const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('registry', () => {
  it('refuses an adapter written for another contract version, naming it and the version it runs', () => {
    const newer = { ...memoryAdapter('newer').adapter, specificationVersion: 'v2' } as unknown as ToolAdapter;
    const unversioned = { ...memoryAdapter('old').adapter, specificationVersion: undefined } as unknown as ToolAdapter;
    expect(() => createRegistry({ adapters: [newer], env: {} })).toThrow(
      'adapter "newer" has specificationVersion "v2"; this @toolbridge/core runs adapters of specification "v1"',
    );
    expect(() => createRegistry({ adapters: [memoryAdapter('fine').adapter, unversioned], env: {} })).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('adapter "old" has no specificationVersion') }),
    );
    expect(createRegistry({ adapters: [memoryAdapter('fine').adapter], env: {} }).toolIds).toEqual(['fine']);
  });

  it('discovers all tools in parallel and caches the result', async () => {
    const a = memoryAdapter('alpha', { detectDelayMs: 200 });
    const b = memoryAdapter('beta', { detectDelayMs: 200 });
    const registry = createRegistry({ adapters: [a.adapter, b.adapter], env: {}, discoveryTtlMs: 60_000 });
    const started = Date.now();
    const tools = await registry.discover();
    expect(Date.now() - started).toBeLessThan(380);
    expect(tools.map((t) => t.id)).toEqual(['alpha', 'beta']);
    expect(tools[0]).toMatchObject({
      name: 'ALPHA',
      type: 'agent',
      available: true,
      version: '1.0.0',
      capabilities: [...AGENT_CAPABILITIES],
    });
    await registry.discover();
    expect(a.calls.detect).toBe(1);
    await registry.discover({ refresh: true });
    expect(a.calls.detect).toBe(2);
  });

  it('shares one probe between concurrent callers (single-flight)', async () => {
    const a = memoryAdapter('alpha', { detectDelayMs: 100 });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const results = await Promise.all([registry.discover(), registry.discover(), registry.discover()]);
    expect(a.calls.detect).toBe(1);
    expect(results[0]).toEqual(results[1]);
  });

  it('health reuses the discovery cache; a hung tool holds up neither discovery of the others nor their health', async () => {
    const hung = memoryAdapter('alpha', { detect: () => new Promise(() => {}) });
    const ok = memoryAdapter('beta');
    const registry = createRegistry({ adapters: [hung.adapter, ok.adapter], env: {}, discoveryTtlMs: 60_000, healthTimeoutMs: 200 });
    expect((await registry.tool('beta')).available).toBe(true);
    const [h1, h2] = await registry.healthAll();
    expect(h1!.status).toBe('unavailable');
    expect(h2!.status).toBe('healthy');
    expect(ok.calls.detect).toBe(1);
  });

  it('expires the cache after the TTL and when the config changes', async () => {
    const a = memoryAdapter('alpha');
    const registry = createRegistry({ adapters: [a.adapter], env: {}, discoveryTtlMs: 50 });
    await registry.discover();
    await new Promise((r) => setTimeout(r, 80));
    await registry.discover();
    expect(a.calls.detect).toBe(2);
    registry.config.replace({ alphaModel: 'm1' });
    const [tool] = await registry.discover();
    expect(a.calls.detect).toBe(3);
    expect(tool).toMatchObject({ models: ['m1'], defaultModel: 'm1' });
  });

  it('reports a detect failure as unavailable instead of failing discovery', async () => {
    const a = memoryAdapter('alpha', {
      async detect() {
        throw new ToolUnavailableError('alpha is not installed');
      },
    });
    const b = memoryAdapter('beta');
    const registry = createRegistry({ adapters: [a.adapter, b.adapter], env: {} });
    const tools = await registry.discover();
    expect(tools[0]).toMatchObject({ id: 'alpha', available: false, reason: 'alpha is not installed', models: [] });
    expect(tools[1]!.available).toBe(true);
  });

  it('connect: unknown id → ToolNotFoundError naming it; not installed → ToolUnavailableError', async () => {
    const a = memoryAdapter('alpha', {
      async detect() {
        return { available: false, models: [], reason: 'alpha is not installed' };
      },
    });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const e = await registry.connect('gamma').catch((x) => x);
    expect(e).toBeInstanceOf(ToolNotFoundError);
    expect(e.message).toContain('"gamma"');
    await expect(registry.connect('alpha')).rejects.toMatchObject({ code: 'tool_unavailable', message: 'alpha is not installed' });
  });

  it('connect probes only the tool asked for, so a hung tool cannot stall it', async () => {
    const hung = memoryAdapter('alpha', { detect: () => new Promise(() => {}) });
    const b = memoryAdapter('beta');
    const registry = createRegistry({ adapters: [hung.adapter, b.adapter], env: {} });
    const beta = await registry.connect('beta');
    expect(beta.version).toBe('1.0.0');
    expect(b.calls.detect).toBe(1);
  });

  it('connected tools chat, validate input, and expose auth only where the tool has it', async () => {
    const a = memoryAdapter('alpha');
    const { checkAuth: _c, startAuth: _s, ...noAuth } = memoryAdapter('beta').adapter;
    const registry = createRegistry({ adapters: [a.adapter, { ...noAuth, type: 'runtime', capabilities: RUNTIME_CAPABILITIES }], env: {} });
    const alpha = await registry.connect('alpha');
    const result = await alpha.chat(hello);
    expect(result.message).toEqual({ role: 'assistant', content: 'echo: hi' });
    expect(result.metadata).toMatchObject({ toolId: 'alpha', latencyMs: expect.any(Number) });
    expect(typeof alpha.checkAuth).toBe('function');
    await expect(alpha.chat({ messages: [] })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(alpha.chat({ messages: [{ role: 'assistant', content: 'x' }] })).rejects.toThrow(/role "user"/);
    expect(a.calls.chat).toBe(1);
    const beta = await registry.connect('beta');
    expect(beta.checkAuth).toBeUndefined();
    expect(beta.startAuth).toBeUndefined();
    expect((await beta.health()).authStatus).toBe('not_required');
  });

  it('turns a deadline into TimeoutError even if the adapter ignores its signal', async () => {
    const a = memoryAdapter('alpha', { chat: () => new Promise(() => {}) });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const e = await registry.chat('alpha', hello, { timeoutMs: 100 }).catch((x) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e.toolId).toBe('alpha');
  });

  it('passes an abort to the adapter as signal', async () => {
    let seen: AbortSignal | undefined;
    const a = memoryAdapter('alpha', {
      chat: (_r, ctx) => {
        seen = ctx.signal;
        return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('killed'))));
      },
    });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const c = new AbortController();
    setTimeout(() => c.abort(), 50);
    await expect(registry.chat('alpha', hello, { signal: c.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(seen?.aborted).toBe(true);
  });

  it('bounds each health check so one hung tool cannot stall the others', async () => {
    const hung = memoryAdapter('alpha', { detect: () => new Promise(() => {}) });
    const ok = memoryAdapter('beta');
    const registry = createRegistry({ adapters: [hung.adapter, ok.adapter], env: {}, healthTimeoutMs: 200 });
    const started = Date.now();
    const [h1, h2] = await registry.healthAll();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(h1).toMatchObject({ toolId: 'alpha', status: 'unavailable', reason: 'health check timed out after 200 ms' });
    expect(h2).toMatchObject({
      toolId: 'beta',
      status: 'healthy',
      available: true,
      authSupported: true,
      authenticated: true,
      authStatus: 'authenticated',
      version: '1.0.0',
    });
    expect(h2!.checkedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('remembers logged-out tools and rate-limit cool-downs from chat failures', async () => {
    const a = memoryAdapter('alpha', {
      chat: async () => {
        throw new ToolAuthError('alpha is not logged in', { toolId: 'alpha' });
      },
    });
    const b = memoryAdapter('beta', {
      chat: async () => {
        throw new RateLimitError('slow down', { toolId: 'beta', retryAfterMs: 60_000 });
      },
    });
    const registry = createRegistry({ adapters: [a.adapter, b.adapter], env: {} });
    await expect(registry.chat('alpha', hello)).rejects.toBeInstanceOf(ToolAuthError);
    await expect(registry.chat('beta', hello)).rejects.toBeInstanceOf(RateLimitError);
    expect(registry.state('alpha').auth?.authenticated).toBe(false);
    expect(registry.state('beta').coolDownUntil).toBeGreaterThan(Date.now() + 50_000);
    expect(registry.state('beta').coolDownReason).toBe('rate_limited');
  });

  it('close() cancels in-flight calls and refuses new ones', async () => {
    const a = memoryAdapter('alpha', {
      chat: (_r, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const pending = registry.chat('alpha', hello).catch((e) => e);
    // Close while the tool runs the chat (waiting for that state, not a fixed 20 ms a loaded machine outlasts).
    await waitFor(() => a.calls.chat === 1, 5000, 'the chat to reach the tool');
    await registry.close();
    expect(await pending).toBeInstanceOf(ToolUnavailableError);
    await expect(registry.chat('alpha', hello)).rejects.toThrow(/shutting down/);
  });

  it('a cancelled chat rejects only after the adapter has cleaned up (bounded for adapters that never do)', async () => {
    let cleaned = false;
    const tidy = memoryAdapter('alpha', {
      chat: (_r, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () =>
            setTimeout(() => {
              cleaned = true; // e.g. process killed, temporary files removed
              reject(ctx.signal.reason);
            }, 150),
          ),
        ),
    });
    const stuck = memoryAdapter('beta', { chat: () => new Promise(() => {}) });
    // The settle bound leaves the tidy adapter's 150 ms cleanup room on a loaded machine; the stuck one shows the bound holds.
    const registry = createRegistry({ adapters: [tidy.adapter, stuck.adapter], env: {}, settleTimeoutMs: 1000 });
    await expect(registry.chat('alpha', hello, { timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    expect(cleaned).toBe(true);
    const started = Date.now();
    await expect(registry.chat('beta', hello, { timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('close() resolves once in-flight calls have cleaned up; later calls fail without crashing', async () => {
    let cleaned = false;
    const a = memoryAdapter('alpha', {
      chat: (_r, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () =>
            setTimeout(() => {
              cleaned = true;
              reject(ctx.signal.reason);
            }, 150),
          ),
        ),
    });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    const pending = registry.chat('alpha', hello).catch((e) => e);
    // Close while the tool runs the chat (waiting for that state, not a fixed 20 ms a loaded machine outlasts).
    await waitFor(() => a.calls.chat === 1, 5000, 'the chat to reach the tool');
    await registry.close();
    expect(cleaned).toBe(true);
    expect(await pending).toBeInstanceOf(ToolUnavailableError);
    // Discovery after close answers (every tool unavailable) instead of rejecting in the background.
    const [tool] = await registry.discover();
    expect(tool).toMatchObject({ id: 'alpha', available: false, reason: 'Toolbridge is shutting down' });
    await expect(registry.connect('alpha')).rejects.toBeInstanceOf(ToolUnavailableError);
  });

  it('connect() shares a probe already under way', async () => {
    const a = memoryAdapter('alpha', { detectDelayMs: 100 });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    await Promise.all([registry.connect('alpha'), registry.connect('alpha'), registry.connect('alpha'), registry.discover()]);
    expect(a.calls.detect).toBe(1);
  });

  it('streams through the registry and stops the adapter when the consumer breaks', async () => {
    let finished = false;
    const a = memoryAdapter('alpha', {
      async *stream() {
        try {
          yield { type: 'delta', text: 'a' } as StreamEvent;
          yield { type: 'delta', text: 'b' } as StreamEvent;
        } finally {
          finished = true;
        }
      },
    });
    const registry = createRegistry({ adapters: [a.adapter], env: {} });
    for await (const e of registry.stream('alpha', hello)) {
      expect(e).toEqual({ type: 'delta', text: 'a' });
      break;
    }
    expect(finished).toBe(true);
  });

  it('rejects adapters that clash on id or config keys', () => {
    const a = memoryAdapter('alpha').adapter;
    expect(() => createRegistry({ adapters: [a, a], env: {} })).toThrow(/share the id/);
  });
});
