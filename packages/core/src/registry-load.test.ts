import { describe, expect, it } from '@jest/globals';
import type { CallContext, ToolAdapter } from './adapter.js';
import { sleep } from './abort.js';
import { streamFrom, waitFor } from '@toolbridge/test-suite/kit';
import { InvalidRequestError, TimeoutError, ToolAuthError, ToolUnavailableError } from './errors.js';
import { createRegistry } from './registry.js';
import { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES, type ChatResult } from './types.js';

const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };
const answer: ChatResult = { message: { role: 'assistant', content: 'ok' }, usage: {}, metadata: {} };

/** A tool whose chats run until the test lets them finish; counts what it was asked. */
function gatedTool(id: string, type: 'agent' | 'runtime' = 'agent') {
  const running: Array<() => void> = [];
  const counts = { chats: 0, detect: 0, checkAuth: 0, usageLimits: 0 };
  let authenticated = true;
  let checkDelayMs = 0;
  let detectGate: Promise<void> | undefined;
  const adapter: ToolAdapter = {
    specificationVersion: 'v1',
    id,
    name: id.toUpperCase(),
    type,
    capabilities: type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    configSchema: { [`${id}Model`]: { type: 'string' } },
    async detect() {
      counts.detect++;
      if (detectGate) await detectGate;
      return { available: true, version: `v${counts.detect}`, models: [] };
    },
    async checkAuth(ctx: CallContext) {
      counts.checkAuth++;
      if (checkDelayMs) await sleep(checkDelayMs, ctx.signal);
      return { authenticated };
    },
    async usageLimits() {
      counts.usageLimits++;
      return { status: 'available', source: 'local_session', windows: {} };
    },
    features: {},
    stream: streamFrom(async (_req, ctx) => {
      counts.chats++;
      await new Promise<void>((resolve, reject) => {
        running.push(resolve);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      });
      return answer;
    }),
  };
  return {
    adapter,
    counts,
    /** Let the oldest running chat answer. */
    finishOne: () => running.shift()?.(),
    setAuthenticated: (v: boolean) => (authenticated = v),
    setCheckDelay: (ms: number) => (checkDelayMs = ms),
    gateDetect: () => {
      let open!: () => void;
      detectGate = new Promise<void>((r) => (open = r));
      return () => {
        detectGate = undefined;
        open();
      };
    },
  };
}

const settleTicks = () => new Promise((r) => setTimeout(r, 20));

describe('registry concurrency limits', () => {
  it('runs at most maxConcurrent chats of a tool, queues up to maxQueued, refuses the rest at once', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, concurrency: { maxConcurrent: 2, maxQueued: 1 } });
    const chats = [registry.chat('alpha', hello), registry.chat('alpha', hello), registry.chat('alpha', hello)];
    await waitFor(() => t.counts.chats === 2 && registry.load('alpha').queued === 1, 5000, 'two chats running, one queued');
    await settleTicks();
    expect(t.counts.chats).toBe(2);
    expect(registry.load('alpha')).toEqual({ maxConcurrent: 2, maxQueued: 1, active: 2, queued: 1, transport: 'spawn' });
    await expect(registry.chat('alpha', hello)).rejects.toMatchObject({ code: 'tool_unavailable', details: { busy: true } });
    t.finishOne();
    await waitFor(() => t.counts.chats === 3, 2000, 'the queued chat to start'); // the queued chat got the freed slot
    t.finishOne();
    t.finishOne();
    await expect(Promise.all(chats)).resolves.toHaveLength(3);
    expect(registry.load('alpha')).toMatchObject({ active: 0, queued: 0 });
  });

  it('counts the wait for a slot against the chat deadline; the tool never starts that chat', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, concurrency: { maxConcurrent: 1, maxQueued: 4 } });
    const first = registry.chat('alpha', hello);
    // The first chat holds the slot before the second asks (a loaded machine plans a session slowly).
    await waitFor(() => t.counts.chats === 1, 5000, 'the first chat to start');
    const err = await registry.chat('alpha', hello, { timeoutMs: 80 }).catch((e: unknown) => e);
    expect(TimeoutError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/timed out after 80 ms while waiting for a free slot/);
    expect(t.counts.chats).toBe(1);
    expect(registry.load('alpha')).toMatchObject({ active: 1, queued: 0 });
    t.finishOne();
    await first;
  });

  it('streams hold a slot until the stream is over, even when the consumer stops early', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, concurrency: { maxConcurrent: 1, maxQueued: 0 } });
    const it1 = registry.stream('alpha', hello)[Symbol.asyncIterator]();
    const firstEvent = it1.next();
    await waitFor(() => t.counts.chats === 1, 5000, 'the stream to start');
    expect(registry.load('alpha').active).toBe(1);
    await expect(registry.chat('alpha', hello)).rejects.toThrow(/busy/);
    t.finishOne();
    expect((await firstEvent).value).toMatchObject({ type: 'result' });
    await it1.return?.();
    expect(registry.load('alpha').active).toBe(0);
  });

  it('gives each tool its own limiter, with defaults by type and per-tool overrides', () => {
    const registry = createRegistry({
      adapters: [gatedTool('alpha').adapter, gatedTool('beta').adapter, gatedTool('rt', 'runtime').adapter],
      env: {},
      concurrency: { maxQueued: 3, tools: { beta: { maxConcurrent: 1 } } },
    });
    expect(registry.load('alpha')).toMatchObject({ maxConcurrent: 4, maxQueued: 3 });
    expect(registry.load('beta')).toMatchObject({ maxConcurrent: 1, maxQueued: 3 });
    expect(registry.load('rt')).toMatchObject({ maxConcurrent: 8, maxQueued: 3 });
    const defaults = createRegistry({ adapters: [gatedTool('alpha').adapter, gatedTool('rt', 'runtime').adapter], env: {} });
    expect(defaults.load('alpha')).toMatchObject({ maxConcurrent: 4, maxQueued: 32 });
    expect(defaults.load('rt')).toMatchObject({ maxConcurrent: 8, maxQueued: 128 });
  });

  it('refuses concurrency settings for unknown tools or with bad values', () => {
    const adapters = [gatedTool('alpha').adapter];
    expect(() => createRegistry({ adapters, env: {}, concurrency: { tools: { nope: { maxConcurrent: 1 } } } })).toThrow(
      InvalidRequestError,
    );
    expect(() => createRegistry({ adapters, env: {}, concurrency: { maxConcurrent: 0 } })).toThrow(/concurrency of alpha must be/);
  });

  it('a chat cancelled while queued frees its place for the next caller', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, concurrency: { maxConcurrent: 1, maxQueued: 1 } });
    const first = registry.chat('alpha', hello);
    const controller = new AbortController();
    const cancelled = registry.chat('alpha', hello, { signal: controller.signal }).catch((e: unknown) => e);
    await waitFor(() => t.counts.chats === 1 && registry.load('alpha').queued === 1, 5000, 'one running, one queued');
    controller.abort();
    expect(await cancelled).toMatchObject({ code: 'aborted' });
    const third = registry.chat('alpha', hello); // would be refused if the cancelled one still held the queue place
    await waitFor(() => registry.load('alpha').queued === 1, 5000, 'the third chat to queue');
    t.finishOne();
    await first;
    await waitFor(() => t.counts.chats === 2, 5000, 'the third chat to start');
    t.finishOne();
    await expect(third).resolves.toMatchObject({ message: { content: 'ok' } });
    expect(t.counts.chats).toBe(2);
  });
});

describe('registry health cache', () => {
  it('reuses a record within the TTL, shares one check among concurrent callers, and checks again on refresh', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, healthTtlMs: 60_000 });
    const [a, b] = await Promise.all([registry.health('alpha'), registry.health('alpha')]);
    expect(t.counts.checkAuth).toBe(1);
    expect(a.checkedAt).toBe(b.checkedAt);
    await registry.health('alpha');
    expect(t.counts.checkAuth).toBe(1);
    const fresh = await registry.health('alpha', { refresh: true });
    expect(t.counts.checkAuth).toBe(2);
    expect(fresh).toMatchObject({ status: 'healthy', authenticated: true, load: { active: 0, queued: 0, maxConcurrent: 4 } });
  });

  it('checks again once the TTL has passed', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, healthTtlMs: 30 });
    await registry.health('alpha');
    await new Promise((r) => setTimeout(r, 60));
    await registry.health('alpha');
    expect(t.counts.checkAuth).toBe(2);
  });

  it('reports live load even from a cached record', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, healthTtlMs: 60_000 });
    await registry.health('alpha');
    const chat = registry.chat('alpha', hello);
    await waitFor(() => t.counts.chats === 1, 5000, 'the chat to start');
    expect((await registry.health('alpha')).load.active).toBe(1);
    expect(t.counts.checkAuth).toBe(1);
    t.finishOne();
    await chat;
  });

  it('drops the cached record when a chat reports an auth error, and again when a chat succeeds afterwards', async () => {
    const t = gatedTool('alpha');
    let failAuth = true;
    const adapter: ToolAdapter = {
      ...t.adapter,
      stream: streamFrom(async () => {
        if (failAuth) throw new ToolAuthError('ALPHA is not logged in', { toolId: 'alpha' });
        return answer;
      }),
    };
    const registry = createRegistry({ adapters: [adapter], env: {}, healthTtlMs: 60_000 });
    expect((await registry.health('alpha')).authenticated).toBe(true);
    t.setAuthenticated(false);
    await expect(registry.chat('alpha', hello)).rejects.toThrow(ToolAuthError);
    expect((await registry.health('alpha')).authenticated).toBe(false);
    expect(t.counts.checkAuth).toBe(2);
    t.setAuthenticated(true);
    failAuth = false;
    await registry.chat('alpha', hello);
    expect((await registry.health('alpha')).authenticated).toBe(true);
    expect(t.counts.checkAuth).toBe(3);
  });

  it('an answered chat drops the record of a tool that reports usage windows (each answer updates them), not of others', async () => {
    const t = gatedTool('alpha');
    let used = 10;
    const withWindows: ToolAdapter = {
      ...t.adapter,
      async usageLimits() {
        return {
          status: 'available',
          source: 'local_session',
          windows: { five_hour: { usedPercentage: used, remainingPercentage: 100 - used } },
        };
      },
      stream: streamFrom(async () => {
        used = 20;
        return answer;
      }),
    };
    const plain = gatedTool('beta');
    const registry = createRegistry({
      adapters: [withWindows, { ...plain.adapter, usageLimits: undefined, stream: streamFrom(async () => answer) }],
      env: {},
      healthTtlMs: 60_000,
    });
    expect((await registry.health('alpha')).usageLimits).toMatchObject({ windows: { five_hour: { usedPercentage: 10 } } });
    await registry.health('beta');
    await registry.chat('alpha', hello);
    await registry.chat('beta', hello);
    expect((await registry.health('alpha')).usageLimits).toMatchObject({ windows: { five_hour: { usedPercentage: 20 } } });
    await registry.health('beta');
    expect(plain.counts.checkAuth).toBe(1);
  });

  it('a health check that began before a chat and ended after it never stores its older windows over the chat’s', async () => {
    const t = gatedTool('alpha');
    let used = 10;
    let slowRead: Promise<void> | undefined;
    const windowsOf = (n: number) => ({ five_hour: { usedPercentage: n, remainingPercentage: 100 - n } });
    const withWindows: ToolAdapter = {
      ...t.adapter,
      async usageLimits() {
        const read = used; // what the file said when the check read it
        if (slowRead) await slowRead;
        return { status: 'available', source: 'local_session', windows: windowsOf(read) };
      },
      stream: streamFrom(async () => {
        used = 20;
        return answer;
      }),
    };
    const registry = createRegistry({ adapters: [withWindows], env: {}, healthTtlMs: 60_000 });
    let finishRead!: () => void;
    slowRead = new Promise<void>((r) => (finishRead = r));
    const check = registry.health('alpha', { refresh: true });
    await waitFor(() => registry.load('alpha').active === 0 && t.counts.checkAuth > 0);
    slowRead = undefined;
    await registry.chat('alpha', hello);
    await waitFor(() => registry.state('alpha').usageLimits?.windows?.five_hour?.usedPercentage === 20);
    finishRead();
    // The check that began first answers its own caller with the newer windows it now knows of...
    expect((await check).usageLimits).toMatchObject({ windows: windowsOf(20) });
    // ...and neither the registry's state nor the next /health go back to the older ones.
    expect(registry.state('alpha').usageLimits).toMatchObject({ windows: windowsOf(20) });
    expect((await registry.health('alpha')).usageLimits).toMatchObject({ windows: windowsOf(20) });
  });

  it('drops cached records when the config changes', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, healthTtlMs: 60_000 });
    await registry.health('alpha');
    registry.config.replace({ alphaModel: 'm2' });
    await registry.health('alpha');
    expect(t.counts.checkAuth).toBe(2);
  });

  it('a caller with a short deadline gets a timed-out record; the shared check still completes for the next caller', async () => {
    const t = gatedTool('alpha');
    t.setCheckDelay(200);
    const registry = createRegistry({ adapters: [t.adapter], env: {}, healthTtlMs: 60_000 });
    const hurried = await registry.health('alpha', { timeoutMs: 50 });
    expect(hurried).toMatchObject({ status: 'unavailable', reason: 'health check timed out after 50 ms' });
    const patient = await registry.health('alpha');
    expect(patient).toMatchObject({ status: 'healthy', authenticated: true });
    expect(t.counts.checkAuth).toBe(1);
  });

  it('after close(), health is refused as shutting down, without a new check', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {} });
    await registry.close();
    await expect(registry.health('alpha')).rejects.toThrow(new ToolUnavailableError('Toolbridge is shutting down'));
    expect(t.counts.checkAuth).toBe(0);
  });
});

describe('registry detection for the chat path', () => {
  it('allowStale answers from a record past its TTL while a fresh probe runs in the background', async () => {
    const t = gatedTool('alpha');
    const registry = createRegistry({ adapters: [t.adapter], env: {}, discoveryTtlMs: 150 });
    expect((await registry.tool('alpha')).version).toBe('v1');
    await new Promise((r) => setTimeout(r, 200));
    const open = t.gateDetect();
    const stale = await registry.tool('alpha', { allowStale: true });
    expect(stale.version).toBe('v1');
    expect(t.counts.detect).toBe(2); // the refresh is under way
    expect((await registry.tool('alpha', { allowStale: true })).version).toBe('v1'); // and shared
    expect(t.counts.detect).toBe(2);
    open();
    await settleTicks();
    expect((await registry.tool('alpha')).version).toBe('v2');
  });

  it('a chat that finds the tool gone drops its discovery record', async () => {
    const t = gatedTool('alpha');
    const adapter: ToolAdapter = {
      ...t.adapter,
      stream: streamFrom(async () => {
        throw new ToolUnavailableError('alpha is not installed', { toolId: 'alpha', details: { notInstalled: true } });
      }),
    };
    const registry = createRegistry({ adapters: [adapter], env: {}, discoveryTtlMs: 60_000 });
    await registry.tool('alpha');
    await expect(registry.chat('alpha', hello)).rejects.toThrow(ToolUnavailableError);
    await registry.tool('alpha');
    expect(t.counts.detect).toBe(2);
  });
});
