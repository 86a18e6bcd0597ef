import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, type Activity, type StreamEvent } from '@toolbridge/core';
import { createCallContext, createRegistry } from '@toolbridge/core/runtime';
import { adapterStream } from '@toolbridge/test-suite/kit';
import { createOllamaAdapter } from './adapter.js';
import { ReasoningSteps, REASONING_MAX_CHARS } from './reasoning.js';
import { startFakeOllama, type FakeOllama } from './testing/fake-ollama.js';

const textOf = (a: Activity | undefined) => (a && a.kind === 'reasoning' ? a.text : undefined);

describe('ReasoningSteps (a clock the test moves)', () => {
  it('starts at once, then updates at most once per interval with the latest text, completes with all of it', () => {
    let now = 0;
    const steps = new ReasoningSteps({ intervalMs: 100, maxChars: 10, now: () => now });
    expect(steps.push('abc')).toEqual({ id: 'reasoning', kind: 'reasoning', status: 'started', title: 'Thinking', text: 'abc' });
    now = 50;
    expect(steps.push('def')).toBeUndefined();
    now = 99;
    expect(steps.push('ghi')).toBeUndefined();
    now = 100;
    // The latest 10 characters, the cut marked.
    expect(steps.push('jkl')).toMatchObject({ status: 'updated', text: '…defghijkl' });
    now = 150;
    expect(steps.push('mno')).toBeUndefined();
    expect(steps.complete()).toMatchObject({ status: 'completed', text: 'abcdefghijklmno' });
    expect(steps.complete()).toBeUndefined();
  });

  it('never cuts a character in half', () => {
    let now = 0;
    const steps = new ReasoningSteps({ intervalMs: 0, maxChars: 4, now: () => now++ });
    steps.push('x');
    // '😀' is two UTF-16 units: a 3-unit tail would start inside it.
    expect(textOf(steps.push('😀ab'))).toBe('…ab');
    expect(textOf(steps.push('c😀'))).toBe('…c😀');
  });

  it('thinking after the answer began is a new step; a broken-off step fails', () => {
    const steps = new ReasoningSteps({ now: () => 0 });
    steps.push('first');
    expect(steps.complete()).toMatchObject({ id: 'reasoning', status: 'completed' });
    expect(steps.push('second')).toMatchObject({ id: 'reasoning-2', status: 'started', text: 'second' });
    expect(steps.fail()).toMatchObject({ id: 'reasoning-2', status: 'failed', text: 'second' });
    expect(steps.fail()).toBeUndefined();
  });
});

describe('a long reasoning through the adapter and the registry', () => {
  let fake: FakeOllama;
  // 5,000 thinking tokens of 5 characters: before the throttle, 5,001 events and 62.5 M characters.
  const thinking = Array.from({ length: 5000 }, (_, i) => `tok${i % 10} `).join('');
  beforeAll(async () => {
    fake = await startFakeOllama({ models: ['qwen3:14b'], thinking });
  });
  afterAll(() => fake.close());

  it('sends a bounded number of bounded updates, and the whole text once, on completed', async () => {
    const ctx = createCallContext({ config: { ollamaHost: fake.url }, env: {}, toolId: 'ollama' }, {}).ctx;
    const started = performance.now();
    const events: StreamEvent[] = [];
    for await (const e of adapterStream(createOllamaAdapter(), { messages: [{ role: 'user', content: 'Think' }] }, ctx)) events.push(e);
    const elapsed = performance.now() - started;
    const activity = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
    expect(activity[0]).toMatchObject({ status: 'started' });
    expect(activity.at(-1)).toMatchObject({ status: 'completed', text: thinking });
    const live = activity.slice(0, -1);
    // One at the start, then at most one per 250 ms.
    expect(live.length).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 250));
    for (const a of live) expect(textOf(a)!.length).toBeLessThanOrEqual(REASONING_MAX_CHARS);
    expect(new Set(activity.map((a) => a.id))).toEqual(new Set(['reasoning']));
  });

  it('keeps the whole text in the chat result, and marks a step cut off by a failure as failed', async () => {
    const registry = createRegistry({ adapters: [createOllamaAdapter()], env: { OLLAMA_HOST: fake.url } });
    try {
      const result = await registry.chat('ollama', { messages: [{ role: 'user', content: 'Think' }] });
      expect(result.activities).toEqual([{ id: 'reasoning', kind: 'reasoning', status: 'completed', title: 'Thinking', text: thinking }]);

      fake.set('/api/chat', { kind: 'cut', afterChunks: 3 });
      const seen: Activity[] = [];
      const error = await (async () => {
        for await (const e of registry.stream('ollama', { messages: [{ role: 'user', content: 'Think' }] })) {
          if (e.type === 'activity') seen.push(e.activity);
        }
      })().catch((e) => e);
      expect(error).toBeInstanceOf(ProviderExecutionError);
      expect(seen.map((a) => a.status)).toEqual(['started', 'failed']);
      expect(textOf(seen[1])).toBe('tok0 tok1 tok2 ');
    } finally {
      fake.set('/api/chat', { kind: 'ok' });
      await registry.close();
    }
  });
});
