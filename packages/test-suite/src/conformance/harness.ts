import assert from 'node:assert/strict';
import { type ChatRequest, type ToolAdapter, type ToolRequest } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { processesWithEnv } from '../processes.js';
import type { TestRunner } from './runner.js';
import type { ConformanceOptions, ConformanceScenario } from './types.js';

export const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
/** A 1×1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
/** The per-test timeout for chats with a real tool. */
export const CHAT_MS = 60_000;

/** One scenario staged: a registry over the adapter, with every request the adapter received recorded. */
export interface Staged {
  registry: ToolRegistry;
  adapter: ToolAdapter;
  requests: ToolRequest[];
  processes: () => number[];
}

/** What every group gets: the runner, the adapter's options, and a way to stage a scenario. */
export interface GroupContext {
  runner: TestRunner;
  options: ConformanceOptions;
  stage(scenario: ConformanceScenario): Promise<Staged>;
}

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

/** Stages scenarios and remembers how to clean each up. */
export function stager(options: ConformanceOptions): { stage: GroupContext['stage']; cleanup(): Promise<void> } {
  const cleanups: Array<() => Promise<void>> = [];
  return {
    async stage(scenario) {
      const s = await options.setup(scenario);
      if (s.cleanup) cleanups.push(s.cleanup);
      const { adapter, requests } = recording(s.adapter);
      const registry = createRegistry({ adapters: [adapter], env: s.env });
      if (s.config) registry.config.replace(s.config);
      cleanups.push(() => registry.close());
      const processes = s.processes ?? (() => (s.env.HOME ? processesWithEnv(`HOME=${s.env.HOME}`) : []));
      return { registry, adapter: s.adapter, requests, processes };
    },
    async cleanup() {
      for (const c of cleanups.reverse()) await c();
      cleanups.length = 0;
    },
  };
}

/** The error a promise rejects with; fails when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
}

/** `actual` has each of `fields` (deep-equal), like a partial match. */
export function assertFields(actual: unknown, fields: Record<string, unknown>): void {
  assert.ok(typeof actual === 'object' && actual !== null, 'expected an object');
  for (const [key, value] of Object.entries(fields)) assert.deepEqual((actual as Record<string, unknown>)[key], value, `field ${key}`);
}

export function assertIncludes<T>(list: readonly T[], value: T, what = 'list'): void {
  assert.ok(list.includes(value), `${what} ${JSON.stringify(list)} should include ${JSON.stringify(value)}`);
}
