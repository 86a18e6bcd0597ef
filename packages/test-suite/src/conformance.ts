import { afterAll, describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  AGENT_CAPABILITIES,
  createRegistry,
  InvalidRequestError,
  RateLimitError,
  RUNTIME_CAPABILITIES,
  TimeoutError,
  ToolAuthError,
  ToolbridgeError,
  type ToolAdapter,
  type ToolbridgeConfig,
} from '@toolbridge/core';

/**
 * Situations every adapter must be able to stage (with fake executables on
 * PATH or an in-test server): a working tool, a missing one, one that never
 * answers, one that is logged out, one that is rate limited.
 */
export type ConformanceScenario = 'ok' | 'missing' | 'hang' | 'unauthenticated' | 'rate-limited';

export interface ConformanceSetup {
  adapter: ToolAdapter;
  /** Environment for the registry: PATH with the fakes, throwaway HOME, ... */
  env: NodeJS.ProcessEnv;
  config?: ToolbridgeConfig;
  cleanup?: () => Promise<void>;
}

export interface ConformanceOptions {
  /** Build the adapter and its environment for a scenario. */
  setup(scenario: ConformanceScenario): Promise<ConformanceSetup>;
  /** The exact answer the 'ok' scenario gives. */
  expectedText: string;
  /** Scenarios the tool cannot have (e.g. Ollama has no login). */
  skip?: ConformanceScenario[];
}

const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };

/**
 * The shared conformance suite (keyv-style): every adapter package runs it
 * from its own tests so all tools behave alike through the registry.
 */
export function describeAdapterConformance(name: string, options: ConformanceOptions): void {
  const cleanups: Array<() => Promise<void>> = [];
  const registryFor = async (scenario: ConformanceScenario) => {
    const s = await options.setup(scenario);
    if (s.cleanup) cleanups.push(s.cleanup);
    const registry = createRegistry({ adapters: [s.adapter], env: s.env });
    if (s.config) registry.config.replace(s.config);
    cleanups.push(() => registry.close());
    return { registry, adapter: s.adapter };
  };
  const skipped = (s: ConformanceScenario) => options.skip?.includes(s) ?? false;

  describe(`${name} conformance`, () => {
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    it('declares a valid identity and config schema', async () => {
      const { adapter } = await registryFor('ok');
      expect(adapter.id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(adapter.name.length).toBeGreaterThan(0);
      expect(['agent', 'runtime']).toContain(adapter.type);
      const expected = adapter.type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES;
      expect([...adapter.capabilities].sort()).toEqual([...expected].sort());
      for (const [key, schema] of Object.entries(adapter.configSchema)) {
        expect(key).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(['string', 'integer', 'number', 'boolean']).toContain(schema.type);
      }
      expect(typeof adapter.checkAuth === 'function').toBe(typeof adapter.startAuth === 'function');
    });

    it('discovers an installed tool with its version and models', async () => {
      const { registry } = await registryFor('ok');
      const [tool] = await registry.discover();
      expect(tool!.available).toBe(true);
      expect(typeof tool!.version).toBe('string');
      expect(tool!.version!.length).toBeGreaterThan(0);
      expect(Array.isArray(tool!.models)).toBe(true);
      for (const m of tool!.models) expect(typeof m).toBe('string');
      if (tool!.defaultModel !== undefined && tool!.models.length > 0) expect(tool!.models).toContain(tool!.defaultModel);
    });

    it('reports a missing tool as unavailable with a reason, without throwing', async () => {
      const { registry } = await registryFor('missing');
      const [tool] = await registry.discover();
      expect(tool!.available).toBe(false);
      expect(tool!.reason).toEqual(expect.any(String));
      const health = await registry.health(tool!.id);
      expect(health.status).toBe('unavailable');
      expect(health.available).toBe(false);
      expect(health.reason).toEqual(expect.any(String));
      await expect(registry.connect(tool!.id)).rejects.toMatchObject({ code: 'tool_unavailable', httpStatus: 503 });
    });

    it('chats: an assistant message, integer usage', async () => {
      const { registry, adapter } = await registryFor('ok');
      const tool = await registry.connect(adapter.id);
      const result = await tool.chat(hello, { timeoutMs: 60_000 });
      expect(result.message).toEqual({ role: 'assistant', content: options.expectedText });
      for (const v of Object.values(result.usage)) expect(Number.isInteger(v)).toBe(true);
      expect(result.metadata.toolId).toBe(adapter.id);
    });

    it('streams deltas that add up to the final result', async () => {
      const { registry, adapter } = await registryFor('ok');
      const tool = await registry.connect(adapter.id);
      const events = [];
      for await (const e of tool.stream(hello, { timeoutMs: 60_000 })) events.push(e);
      const last = events.at(-1)!;
      expect(last.type).toBe('result');
      expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
      const text = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
      expect(text).toBe(options.expectedText);
      if (last.type === 'result') expect(last.result.message.content).toBe(options.expectedText);
    });

    it('rejects an invalid request before running anything', async () => {
      const { registry, adapter } = await registryFor('ok');
      await expect(registry.chat(adapter.id, { messages: [] })).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(registry.chat(adapter.id, { messages: [{ role: 'robot', content: 'x' }] } as never)).rejects.toMatchObject({
        code: 'invalid_request',
      });
    });

    it('times out a tool that never answers', async () => {
      const { registry, adapter } = await registryFor('hang');
      const started = Date.now();
      const error = await registry.chat(adapter.id, hello, { timeoutMs: 700 }).catch((e) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect((error as ToolbridgeError).httpStatus).toBe(504);
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('stops when the caller aborts', async () => {
      const { registry, adapter } = await registryFor('hang');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const error = await registry.chat(adapter.id, hello, { signal: controller.signal }).catch((e) => e);
      expect(error).toBeInstanceOf(AbortedError);
    });

    (skipped('unauthenticated') ? it.skip : it)('reports a logged-out tool with ToolAuthError', async () => {
      const { registry, adapter } = await registryFor('unauthenticated');
      const error = await registry.chat(adapter.id, hello, { timeoutMs: 60_000 }).catch((e) => e);
      expect(error).toBeInstanceOf(ToolAuthError);
      expect(error).toMatchObject({ code: 'tool_auth_required', httpStatus: 401, toolId: adapter.id });
      if (adapter.checkAuth) {
        const health = await registry.health(adapter.id);
        expect(health.authSupported).toBe(true);
        expect(health.authenticated).toBe(false);
        expect(health.authStatus).toBe('unauthenticated');
      }
    });

    (skipped('rate-limited') ? it.skip : it)('reports a rate limit as a retryable RateLimitError', async () => {
      const { registry, adapter } = await registryFor('rate-limited');
      const error = await registry.chat(adapter.id, hello, { timeoutMs: 60_000 }).catch((e) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ retryable: true, httpStatus: 429, toolId: adapter.id });
    });
  });
}
