import { afterEach, describe, expect, it } from '@jest/globals';
import {
  AbortedError,
  FallbackExhaustedError,
  InvalidRequestError,
  ProviderExecutionError,
  TimeoutError,
  ToolUnavailableError,
} from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { createOrchestrator, type FallbackOptions, type FallbackStreamEvent } from './orchestrator.js';
import { scriptedAdapter, type ScriptedAdapter } from '@toolbridge/test-suite/kit';

const hello = { messages: [{ role: 'user' as const, content: 'hi' }] };
const registries: ToolRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.close();
});

function setup(tools: ScriptedAdapter[]) {
  const registry = createRegistry({ adapters: tools, env: {} });
  registries.push(registry);
  return createOrchestrator(registry, { backoffBaseMs: 5 });
}

/** Collect events until the stream ends or throws. */
async function drain(events: AsyncIterable<FallbackStreamEvent>) {
  const seen: FallbackStreamEvent[] = [];
  try {
    for await (const e of events) seen.push(e);
    return { seen, error: undefined as unknown };
  } catch (error) {
    return { seen, error };
  }
}

const kinds = (events: FallbackStreamEvent[]) =>
  events.map((e) =>
    e.type === 'attempt' ? `attempt:${e.attempt.toolId}:${e.attempt.outcome}` : e.type === 'delta' ? `delta:${e.text}` : e.type,
  );

describe('streamed fallback chat', () => {
  it('passes activity and deltas through, records the attempt, and ends with done', async () => {
    const a = scriptedAdapter('a', { script: [{ activity: 'thinking', deltas: ['Hel', 'lo'] }] });
    const orchestrator = setup([a]);
    const { seen, error } = await drain(orchestrator.stream(hello, { providers: ['a'] }));
    expect(error).toBeUndefined();
    expect(kinds(seen)).toEqual(['activity', 'delta:Hel', 'delta:lo', 'attempt:a:succeeded', 'done']);
    const done = seen.at(-1)!;
    if (done.type !== 'done') throw new Error('no done event');
    expect(done.response).toMatchObject({
      toolId: 'a',
      fallbackUsed: false,
      result: { message: { role: 'assistant', content: 'Hello' } },
      attempts: [{ toolId: 'a', tryIndex: 0, stage: 'execution', outcome: 'succeeded' }],
    });
  });

  it('falls back when the first tool fails before its first delta', async () => {
    const a = scriptedAdapter('a', { script: [{ activity: 'starting', error: new ToolUnavailableError('gone', { toolId: 'a' }) }] });
    const b = scriptedAdapter('b', { script: [{ deltas: ['from b'] }] });
    const orchestrator = setup([a, b]);
    const { seen, error } = await drain(orchestrator.stream(hello, { providers: ['a', 'b'] }));
    expect(error).toBeUndefined();
    expect(kinds(seen)).toEqual(['activity', 'attempt:a:failed', 'delta:from b', 'attempt:b:succeeded', 'done']);
    const done = seen.at(-1)!;
    expect(done.type === 'done' && done.response.fallbackUsed).toBe(true);
  });

  it('retries before the first delta', async () => {
    const a = scriptedAdapter('a', {
      script: [{ error: new ProviderExecutionError('overloaded', { toolId: 'a', retryable: true }) }, { deltas: ['ok'] }],
    });
    const orchestrator = setup([a]);
    const { seen } = await drain(orchestrator.stream(hello, { providers: ['a'], retries: 1 }));
    expect(kinds(seen)).toEqual(['attempt:a:failed', 'delta:ok', 'attempt:a:succeeded', 'done']);
  });

  it('after the first delta, a failure is thrown: no retry, no fallback, no done', async () => {
    const failure = new ProviderExecutionError('the tool crashed', { toolId: 'a', retryable: true });
    const a = scriptedAdapter('a', { script: [{ deltas: ['partial'], error: failure }] });
    const b = scriptedAdapter('b');
    const orchestrator = setup([a, b]);
    const { seen, error } = await drain(orchestrator.stream(hello, { providers: ['a', 'b'], retries: 2 }));
    expect(error).toBe(failure);
    expect(kinds(seen)).toEqual(['delta:partial', 'attempt:a:failed']);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });

  it('after the first delta, the deadline is thrown as a TimeoutError', async () => {
    const a = scriptedAdapter('a', { script: [{ deltas: ['partial'], hang: true }] });
    const b = scriptedAdapter('b');
    const orchestrator = setup([a, b]);
    const { seen, error } = await drain(orchestrator.stream(hello, { providers: ['a', 'b'], timeoutMs: 200 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).not.toBeInstanceOf(FallbackExhaustedError);
    expect(kinds(seen)).toEqual(['delta:partial', 'attempt:a:failed']);
    expect(a.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(b.calls).toHaveLength(0);
  });

  it('before any delta, everything failing ends with FallbackExhaustedError', async () => {
    const a = scriptedAdapter('a', { script: [{ error: new ProviderExecutionError('x', { toolId: 'a' }) }] });
    const orchestrator = setup([a]);
    const { seen, error } = await drain(orchestrator.stream(hello, { providers: ['a'] }));
    expect(error).toBeInstanceOf(FallbackExhaustedError);
    expect(error).toMatchObject({ code: 'provider_execution_failed' });
    expect(kinds(seen)).toEqual(['attempt:a:failed']);
  });

  it('a consumer that stops early cancels the running attempt and nothing else starts', async () => {
    const a = scriptedAdapter('a', { script: [{ deltas: ['one', 'two', 'three'], delayMs: 100 }] });
    const b = scriptedAdapter('b');
    const orchestrator = setup([a, b]);
    const seen: FallbackStreamEvent[] = [];
    for await (const e of orchestrator.stream(hello, { providers: ['a', 'b'], retries: 2 })) {
      seen.push(e);
      if (e.type === 'delta') break;
    }
    expect(kinds(seen)).toEqual(['delta:one']);
    // The break returned only after the attempt was wound down.
    expect(a.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(a.calls[0]!.endedAt).toBeDefined();
    await new Promise((r) => setTimeout(r, 150));
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(0);
  });

  it('a caller abort mid-stream throws AbortedError', async () => {
    const a = scriptedAdapter('a', { script: [{ deltas: ['one'], hang: true }] });
    const orchestrator = setup([a]);
    const controller = new AbortController();
    const options: FallbackOptions = { providers: ['a'], signal: controller.signal };
    setTimeout(() => controller.abort(), 100);
    const { error } = await drain(orchestrator.stream(hello, options));
    expect(error).toBeInstanceOf(AbortedError);
    expect(a.calls[0]!.ctx.signal.aborted).toBe(true);
  });

  it('rejects invalid input before any attempt', async () => {
    const a = scriptedAdapter('a');
    const orchestrator = setup([a]);
    const { error } = await drain(orchestrator.stream({ messages: [] }, { providers: ['a'] }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    const second = await drain(orchestrator.stream(hello, { providers: [] }));
    expect(second.error).toBeInstanceOf(InvalidRequestError);
    expect(a.calls).toHaveLength(0);
  });
});
