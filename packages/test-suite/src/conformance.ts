import { afterAll, describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  ACTIVITY_KINDS,
  AGENT_CAPABILITIES,
  createRegistry,
  InvalidRequestError,
  RateLimitError,
  RUNTIME_CAPABILITIES,
  TimeoutError,
  ToolAuthError,
  ToolbridgeError,
  type ChatRequest,
  type StreamEvent,
  type ToolAdapter,
  type ToolbridgeConfig,
  type ToolRequest,
} from '@toolbridge/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processesWithEnv, waitForPidsGone } from './processes.js';

/**
 * Situations an adapter stages with fakes or an in-test server. Each group of the suite runs only
 * for the scenarios an adapter says it can stage (and the features it declares):
 * - `ok`: a working tool answering `expectedText`; `missing`: not installed / unreachable;
 * - `hang`: a tool that never answers; `stall`: one that sends something, then never ends;
 * - `unauthenticated`, `rate-limited`: the tool's own failures;
 * - `json`: answers `expectedJson` as its text (structured output);
 * - `activity`: reports at least one step (a command, a file change, ...) before answering.
 */
export type ConformanceScenario = 'ok' | 'missing' | 'hang' | 'stall' | 'unauthenticated' | 'rate-limited' | 'json' | 'activity';

export interface ConformanceSetup {
  adapter: ToolAdapter;
  /** Environment for the registry: PATH with the fakes, throwaway HOME, ... */
  env: NodeJS.ProcessEnv;
  config?: ToolbridgeConfig;
  cleanup?: () => Promise<void>;
  /** The tool's live processes now (default: processes whose environment has this setup's HOME). */
  processes?: () => number[];
}

export interface ConformanceOptions {
  /** Build the adapter and its environment for a scenario. */
  setup(scenario: ConformanceScenario): Promise<ConformanceSetup>;
  /** The scenarios this adapter's fakes can stage (`ok` and `missing` are required). */
  scenarios: readonly ConformanceScenario[];
  /** The exact answer of the `ok` scenario. */
  expectedText: string;
  /** The value the `json` scenario answers. */
  expectedJson?: unknown;
}

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The adapter, with every request it received recorded (to check what core sent it). */
function recording(adapter: ToolAdapter): { adapter: ToolAdapter; requests: ToolRequest[] } {
  const requests: ToolRequest[] = [];
  const wrapped: ToolAdapter = Object.create(adapter) as ToolAdapter;
  Object.defineProperty(wrapped, 'stream', {
    value: (request: ToolRequest, ctx: Parameters<ToolAdapter['stream']>[1]) => {
      requests.push(request);
      return adapter.stream(request, ctx);
    },
  });
  return { adapter: wrapped, requests };
}

/**
 * The shared conformance suite (keyv-style): every adapter package runs it from its own tests,
 * so all tools behave alike through the registry. Groups: contract, discovery, chat, requests,
 * cancellation, processes, auth, rate limits, sessions, structured output, images, activity.
 */
export function describeAdapterConformance(name: string, options: ConformanceOptions): void {
  const cleanups: Array<() => Promise<void>> = [];
  const can = (s: ConformanceScenario) => options.scenarios.includes(s);
  const registryFor = async (scenario: ConformanceScenario) => {
    const s = await options.setup(scenario);
    if (s.cleanup) cleanups.push(s.cleanup);
    const { adapter, requests } = recording(s.adapter);
    const registry = createRegistry({ adapters: [adapter], env: s.env });
    if (s.config) registry.config.replace(s.config);
    cleanups.push(() => registry.close());
    const processes = s.processes ?? (() => (s.env.HOME ? processesWithEnv(`HOME=${s.env.HOME}`) : []));
    return { registry, adapter: s.adapter, requests, processes };
  };
  const group = (title: string, enabled: boolean, body: () => void) => (enabled ? describe : describe.skip)(title, body);

  describe(`${name} conformance`, () => {
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    it('stages the required scenarios', () => {
      expect(can('ok') && can('missing')).toBe(true);
    });

    group('contract', true, () => {
      it('declares a valid identity, capability flags and a config schema of its own keys', async () => {
        const { adapter } = await registryFor('ok');
        expect(adapter.id).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(adapter.name.length).toBeGreaterThan(0);
        expect(['agent', 'runtime']).toContain(adapter.type);
        // The spec's capabilities of its type, at least; more only as flags (features) or detected (vision).
        for (const c of adapter.type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES) expect(adapter.capabilities).toContain(c);
        expect(typeof adapter.features).toBe('object');
        const f = adapter.features;
        if (f.sessions) expect(typeof f.sessions.resume === 'boolean' && typeof f.sessions.fork === 'boolean').toBe(true);
        if (f.structuredOutput) expect(['native', 'prompt']).toContain(f.structuredOutput);
        for (const level of f.permissions ?? []) expect(['read-only', 'workspace-write', 'full']).toContain(level);
        const prefix = adapter.id.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
        for (const [key, schema] of Object.entries(adapter.configSchema)) {
          expect(key.startsWith(prefix)).toBe(true);
          expect(['string', 'integer', 'number', 'boolean']).toContain(schema.type);
        }
        expect(typeof adapter.checkAuth === 'function').toBe(typeof adapter.startAuth === 'function');
      });
    });

    group('discovery', true, () => {
      it('discovers an installed tool with its version and models', async () => {
        const { registry } = await registryFor('ok');
        const [tool] = await registry.discover();
        expect(tool!.available).toBe(true);
        expect(tool!.version).toEqual(expect.any(String));
        expect(tool!.version!.length).toBeGreaterThan(0);
        for (const m of tool!.models) expect(typeof m).toBe('string');
        if (tool!.defaultModel !== undefined && tool!.models.length > 0) expect(tool!.models).toContain(tool!.defaultModel);
      });

      it('reports a missing tool as unavailable with a reason, without throwing', async () => {
        const { registry } = await registryFor('missing');
        const [tool] = await registry.discover();
        expect(tool!.available).toBe(false);
        expect(tool!.reason).toEqual(expect.any(String));
        const health = await registry.health(tool!.id);
        expect(health).toMatchObject({ status: 'unavailable', available: false, reason: expect.any(String) });
        await expect(registry.connect(tool!.id)).rejects.toMatchObject({ code: 'tool_unavailable', httpStatus: 503 });
      });
    });

    group('chat', true, () => {
      it('chats: an assistant message, integer usage, a session', async () => {
        const { registry, adapter } = await registryFor('ok');
        const result = await (await registry.connect(adapter.id)).chat(hello, { timeoutMs: 60_000 });
        expect(result.message).toEqual({ role: 'assistant', content: options.expectedText });
        for (const v of Object.values(result.usage)) expect(Number.isInteger(v)).toBe(true);
        expect(result.metadata.toolId).toBe(adapter.id);
        expect(result.sessionId).toMatch(/^tbs_/);
      });

      it('streams deltas that add up to the final result', async () => {
        const { registry, adapter } = await registryFor('ok');
        const events: StreamEvent[] = [];
        for await (const e of (await registry.connect(adapter.id)).stream(hello, { timeoutMs: 60_000 })) events.push(e);
        expect(events.at(-1)!.type).toBe('result');
        expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
        expect(events.map((e) => (e.type === 'delta' ? e.text : '')).join('')).toBe(options.expectedText);
      });
    });

    group('requests', true, () => {
      it('rejects an invalid request before running anything', async () => {
        const { registry, adapter, requests } = await registryFor('ok');
        await expect(registry.chat(adapter.id, { messages: [] })).rejects.toBeInstanceOf(InvalidRequestError);
        await expect(registry.chat(adapter.id, { messages: [{ role: 'robot', content: 'x' }] } as never)).rejects.toMatchObject({
          code: 'invalid_request',
        });
        expect(requests).toHaveLength(0);
      });

      it('rejects a missing working directory as invalid_request naming it, without running anything or doubting the tool', async () => {
        const { registry, adapter, requests } = await registryFor('ok');
        const gone = path.join(await mkdtemp(path.join(tmpdir(), 'toolbridge-conf-')), 'missing-dir');
        const error = await registry.chat(adapter.id, { ...hello, cwd: gone }).catch((e) => e);
        await rm(path.dirname(gone), { recursive: true, force: true });
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect((error as Error).message).toContain('missing-dir');
        expect(requests).toHaveLength(0);
        expect((await registry.tool(adapter.id)).available).toBe(true);
      });
    });

    group('cancellation', can('hang'), () => {
      it('times out a tool that never answers', async () => {
        const { registry, adapter, processes } = await registryFor('hang');
        const started = Date.now();
        const error = await registry.chat(adapter.id, hello, { timeoutMs: 700 }).catch((e) => e);
        expect(TimeoutError.isInstance(error)).toBe(true);
        expect((error as ToolbridgeError).httpStatus).toBe(504);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(await waitForPidsGone(processes(), 5000)).toEqual([]);
      });

      it('stops when the caller aborts', async () => {
        const { registry, adapter, processes } = await registryFor('hang');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        const error = await registry.chat(adapter.id, hello, { signal: controller.signal }).catch((e) => e);
        expect(error).toBeInstanceOf(AbortedError);
        expect(await waitForPidsGone(processes(), 5000)).toEqual([]);
      });
    });

    group('processes', can('stall'), () => {
      it('a consumer that breaks out of a stream early leaves nothing running', async () => {
        const { registry, adapter, processes } = await registryFor('stall');
        let before: number[] = [];
        for await (const _event of registry.stream(adapter.id, hello, { timeoutMs: 60_000 })) {
          before = processes();
          break;
        }
        if (adapter.type === 'agent') expect(before.length).toBeGreaterThan(0);
        expect(await waitForPidsGone([...before, ...processes()], 5000)).toEqual([]);
        expect(registry.load(adapter.id).active).toBe(0);
      });
    });

    group('auth', can('unauthenticated'), () => {
      it('reports a logged-out tool with ToolAuthError, and health says so', async () => {
        const { registry, adapter } = await registryFor('unauthenticated');
        const error = await registry.chat(adapter.id, hello, { timeoutMs: 60_000 }).catch((e) => e);
        expect(error).toBeInstanceOf(ToolAuthError);
        expect(error).toMatchObject({ code: 'tool_auth_required', httpStatus: 401, toolId: adapter.id });
        if (adapter.checkAuth)
          expect(await registry.health(adapter.id)).toMatchObject({
            authSupported: true,
            authenticated: false,
            authStatus: 'unauthenticated',
          });
      });
    });

    group('rate limits', can('rate-limited'), () => {
      it('reports a rate limit as a retryable RateLimitError', async () => {
        const { registry, adapter } = await registryFor('rate-limited');
        const error = await registry.chat(adapter.id, hello, { timeoutMs: 60_000 }).catch((e) => e);
        expect(error).toBeInstanceOf(RateLimitError);
        expect(error).toMatchObject({ retryable: true, httpStatus: 429, toolId: adapter.id });
      });
    });

    group('sessions', can('ok'), () => {
      it('continues a session: same sessionId, and the tool resumes its own session when it can', async () => {
        const { registry, adapter, requests } = await registryFor('ok');
        const first = await registry.chat(adapter.id, hello, { timeoutMs: 60_000 });
        const second = await registry.chat(
          adapter.id,
          { messages: [{ role: 'user', content: 'And again' }], sessionId: first.sessionId },
          { timeoutMs: 60_000 },
        );
        expect(second.sessionId).toBe(first.sessionId);
        const sent = requests.at(-1)!;
        if (adapter.features.sessions?.resume && typeof first.metadata.nativeSessionId === 'string') {
          expect(sent.resume).toEqual({ nativeSessionId: first.metadata.nativeSessionId, fork: false });
          expect(sent.messages).toHaveLength(1);
        } else {
          // Without native sessions the tool gets the transcript: the first turn, its answer, the new message.
          expect(sent.resume).toBeUndefined();
          expect(sent.messages.length).toBeGreaterThanOrEqual(3);
        }
        const detail = await registry.sessions.get(first.sessionId!);
        expect(detail.turns).toBe(2);
        expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      });
    });

    group('structured output', can('json'), () => {
      it('answers a JSON-Schema request with the parsed object', async () => {
        const { registry, adapter } = await registryFor('json');
        const value = options.expectedJson;
        const schema = { type: typeof value === 'object' && value !== null ? 'object' : typeof value };
        const result = await registry.chat(
          adapter.id,
          { ...hello, responseFormat: { type: 'json_schema', schema } },
          { timeoutMs: 60_000 },
        );
        expect(result.object).toEqual(value);
        expect(JSON.parse(result.message.content)).toEqual(value);
      });
    });

    group('images', true, () => {
      it(adapter_images_title, async () => {
        const { registry, adapter, requests } = await registryFor('ok');
        const request: ChatRequest = {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image', data: PNG, mediaType: 'image/png' },
              ],
            },
          ],
        };
        const [tool] = await registry.discover();
        if (adapter.features.images && tool!.capabilities.includes('vision')) {
          await registry.chat(adapter.id, request, { timeoutMs: 60_000 });
          const image = requests
            .at(-1)!
            .messages.flatMap((m) => m.content)
            .find((p) => p.type === 'image');
          expect(image).toMatchObject({ type: 'image', mediaType: 'image/png', data: PNG });
        } else {
          await expect(registry.chat(adapter.id, request)).rejects.toMatchObject({ code: 'invalid_request', toolId: adapter.id });
          expect(requests).toHaveLength(0);
        }
      });
    });

    group('activity', can('activity'), () => {
      it('reports steps as normalised activity, also in the result', async () => {
        const { registry, adapter } = await registryFor('activity');
        const activity = [];
        let result;
        for await (const e of registry.stream(adapter.id, hello, { timeoutMs: 60_000 })) {
          if (e.type === 'activity') activity.push(e.activity);
          if (e.type === 'result') result = e.result;
        }
        expect(activity.length).toBeGreaterThan(0);
        for (const a of activity) {
          expect(ACTIVITY_KINDS).toContain(a.kind);
          expect(['started', 'updated', 'completed', 'failed']).toContain(a.status);
          expect(typeof a.id).toBe('string');
          expect(typeof a.title).toBe('string');
        }
        expect(result!.activities!.length).toBeGreaterThan(0);
      });
    });
  });
}

const adapter_images_title = 'takes an image when it says it can (vision), else refuses it as invalid_request before running';
