import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { FallbackExhaustedError, AbortedError, RateLimitError, type UsageLimits } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';
import { createOrchestrator } from './orchestrator.js';

const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };
const registries: ToolRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close();
});

const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
function windows(...remaining: number[]): UsageLimits {
  return {
    status: 'available',
    source: 'local_session',
    windows: Object.fromEntries(
      remaining.map((r, i) => [`w${i}`, { usedPercentage: 100 - r, remainingPercentage: r, resetsAt: inOneHour() }]),
    ),
  };
}

async function setup(tools: ScriptedAdapter[]) {
  const registry = createRegistry({ adapters: tools, env: {} });
  registries.push(registry);
  await registry.healthAll();
  return { registry, orchestrator: createOrchestrator(registry, { backoffBaseMs: 5, backoffMaxMs: 20 }) };
}

describe('route: headroom', () => {
  it('tries the tool with the most left of its tightest window first; unknown counts as 50; ties keep the given order', async () => {
    const tight = scriptedAdapter('tight', { usageLimits: windows(90, 20) }); // tightest 20
    const roomy = scriptedAdapter('roomy', { usageLimits: windows(80, 70) }); // tightest 70
    const unknown = scriptedAdapter('unknown'); // 50
    const also50 = scriptedAdapter('also50', { usageLimits: windows(50) });
    const { orchestrator } = await setup([tight, roomy, unknown, also50]);
    const providers = ['tight', 'also50', 'unknown', 'roomy'];
    const response = await orchestrator.chat(hello, { providers, route: 'headroom' });
    expect(response.route).toEqual({ policy: 'headroom', order: ['roomy', 'also50', 'unknown', 'tight'] });
    expect(response.toolId).toBe('roomy');
    expect(tight.calls).toHaveLength(0);

    const inOrder = await orchestrator.chat(hello, { providers });
    expect(inOrder.route).toEqual({ policy: 'in-order', order: providers });
    expect(inOrder.toolId).toBe('tight');
  });

  it('still skips a used-up tool, and falls back in headroom order', async () => {
    const used = scriptedAdapter('used', { usageLimits: windows(0) });
    const failing = scriptedAdapter('failing', { usageLimits: windows(60), script: [{ error: new Error('boom') }] });
    const ok = scriptedAdapter('ok', { usageLimits: windows(30) });
    const { orchestrator } = await setup([used, failing, ok]);
    const response = await orchestrator.chat(hello, { providers: ['used', 'ok', 'failing'], route: 'headroom' });
    expect(response.route.order).toEqual(['failing', 'ok', 'used']);
    expect(response.toolId).toBe('ok');
    expect(response.fallbackUsed).toBe(true);
    expect(used.calls).toHaveLength(0);
  });

  it('a window whose reset has passed no longer counts: that tool counts as unknown (50)', async () => {
    const past = new Date(Date.now() + 300).toISOString();
    const reset = scriptedAdapter('reset', {
      usageLimits: { status: 'available', windows: { five_hour: { usedPercentage: 95, remainingPercentage: 5, resetsAt: past } } },
    });
    const mid = scriptedAdapter('mid', { usageLimits: windows(40) });
    const { orchestrator } = await setup([mid, reset]);
    expect((await orchestrator.chat(hello, { providers: ['mid', 'reset'], route: 'headroom' })).route.order).toEqual(['mid', 'reset']);
    await new Promise((r) => setTimeout(r, 400));
    expect((await orchestrator.chat(hello, { providers: ['mid', 'reset'], route: 'headroom' })).route.order).toEqual(['reset', 'mid']);
  });

  it('refuses an unknown policy and a waitForQuota out of range', async () => {
    const { orchestrator } = await setup([scriptedAdapter('a')]);
    await expect(orchestrator.chat(hello, { providers: ['a'], route: 'cheapest' as 'headroom' })).rejects.toThrow(/route must be one of/);
    await expect(orchestrator.chat(hello, { providers: ['a'], waitForQuota: 3_600_001 })).rejects.toThrow(/waitForQuota/);
  });
});

describe('waitForQuota', () => {
  const coolingFor = (ms: number) => [{ error: new RateLimitError('429', { toolId: 'x', retryAfterMs: ms }) }, {}];

  it('waits for the earliest reset when every provider is out of quota, listed in the queue, then runs', async () => {
    const a = scriptedAdapter('a', { script: coolingFor(60_000) });
    // Long enough that a loaded machine cannot let it pass before the second chat starts.
    const b = scriptedAdapter('b', { script: coolingFor(2500) });
    const { orchestrator } = await setup([a, b]);
    await expect(orchestrator.chat(hello, { providers: ['a', 'b'] })).rejects.toThrow(FallbackExhaustedError); // both cool down now
    const started = Date.now();
    const waiting = orchestrator.chat(hello, { providers: ['a', 'b'], waitForQuota: 30_000 });
    await new Promise((r) => setTimeout(r, 100));
    const [entry] = orchestrator.waiting();
    expect(entry).toMatchObject({ id: expect.any(String), providers: ['a', 'b'] });
    const until = Date.parse(entry!.until);
    expect(until).toBeGreaterThan(started);
    expect(until).toBeLessThanOrEqual(started + 2500 + 2000 + 50);
    const response = await waiting;
    expect(response.toolId).toBe('b');
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(response.attempts.map((x) => [x.toolId, x.outcome])).toEqual([
      ['a', 'skipped'],
      ['b', 'skipped'],
      ['a', 'skipped'],
      ['b', 'succeeded'],
    ]);
    expect(orchestrator.waiting()).toEqual([]);
  });

  it('answers at once, naming the earliest reset, when that reset is further than waitForQuota', async () => {
    const a = scriptedAdapter('a', { script: coolingFor(120_000) });
    const b = scriptedAdapter('b', { script: coolingFor(60_000) });
    const { orchestrator } = await setup([a, b]);
    await expect(orchestrator.chat(hello, { providers: ['a', 'b'] })).rejects.toThrow(FallbackExhaustedError);
    const t0 = Date.now();
    const error = (await orchestrator
      .chat(hello, { providers: ['a', 'b'], waitForQuota: 10_000 })
      .catch((e) => e)) as FallbackExhaustedError;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(error.httpStatus).toBe(429);
    const reset = (error.lastError as RateLimitError).resetsAt!.getTime();
    expect(reset).toBeGreaterThan(t0 + 50_000);
    expect(reset).toBeLessThan(t0 + 61_000); // b's, the earlier, not a's
    expect(orchestrator.waiting()).toEqual([]);
  });

  it('a waiting chat ends at once when its caller goes away', async () => {
    const a = scriptedAdapter('a', { script: coolingFor(60_000) });
    const { orchestrator } = await setup([a]);
    await expect(orchestrator.chat(hello, { providers: ['a'] })).rejects.toThrow(FallbackExhaustedError);
    const controller = new AbortController();
    const waiting = orchestrator.chat(hello, { providers: ['a'], waitForQuota: 120_000, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    expect(orchestrator.waiting()).toHaveLength(1);
    const t0 = Date.now();
    controller.abort();
    await expect(waiting).rejects.toThrow(AbortedError);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(orchestrator.waiting()).toEqual([]);
    expect(a.calls).toHaveLength(1);
  });

  it('a stream waits too, until the reset and not before, then streams the answer', async () => {
    // The test keeps the clock: however slow the machine, the cool-down cannot pass before the
    // stream asks (it did with a real 300 ms one), and the minute's wait takes no real time.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const a = scriptedAdapter('a', { script: [coolingFor(60_000)[0]!, { deltas: ['hel', 'lo'] }] });
      const { orchestrator } = await setup([a]);
      await expect(orchestrator.chat(hello, { providers: ['a'] })).rejects.toThrow(FallbackExhaustedError);
      const kinds: string[] = [];
      let ended = false;
      const consumed = (async () => {
        for await (const event of orchestrator.stream(hello, { providers: ['a'], waitForQuota: 120_000 })) kinds.push(event.type);
      })().finally(() => (ended = true));
      while (orchestrator.waiting().length === 0 && !ended) await new Promise((r) => setImmediate(r));
      expect(orchestrator.waiting()).toHaveLength(1);
      const until = Date.parse(orchestrator.waiting()[0]!.until);
      expect(until - Date.now()).toBeGreaterThan(60_000 - 1000); // the cool-down's end, plus the margin
      expect(kinds).toEqual(['attempt']); // skipped
      await jest.advanceTimersByTimeAsync(until - Date.now() - 1);
      expect(kinds).toEqual(['attempt']); // still waiting a millisecond before the reset
      expect(a.calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      await consumed;
      expect(kinds).toEqual(['attempt', 'delta', 'delta', 'attempt', 'done']); // skipped; the answer; succeeded
      expect(a.calls).toHaveLength(2);
      expect(orchestrator.waiting()).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
  });
});
