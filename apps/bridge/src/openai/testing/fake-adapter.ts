import type { ToolRequest, ToolType, Usage } from '@toolbridge/core';
import { scriptedAdapter, type ScriptedAdapter, type ScriptStep } from '@toolbridge/test-suite/kit';

/** What one chat of a fake tool does. */
export interface FakeBehaviour {
  deltas?: string[];
  delayMs?: number;
  usage?: Usage;
  model?: string;
  /** Thrown after `failAfterDeltas` deltas (default: before the first). */
  fail?: Error;
  failAfterDeltas?: number;
  /** Never finish after the deltas: only an abort ends the chat. */
  hang?: boolean;
}

export interface FakeAdapterOptions {
  id: string;
  name?: string;
  type?: ToolType;
  models?: string[];
  available?: boolean;
  reason?: string;
  behaviour?: FakeBehaviour | ((request: ToolRequest) => FakeBehaviour);
}

/** The `/v1` tests' preset of the test kit's scripted tool: no login, models as given, `Hello from <id>`. */
export function createFakeAdapter(options: FakeAdapterOptions): ScriptedAdapter {
  const step = (b: FakeBehaviour): ScriptStep => ({
    deltas: b.deltas ?? ['Hello', ' from ', options.id],
    delayMs: b.delayMs,
    usage: b.usage ?? {},
    model: b.model,
    hang: b.hang,
    ...(b.fail ? { error: b.fail, failAfterDeltas: b.failAfterDeltas ?? 0 } : {}),
  });
  const behaviour = options.behaviour ?? {};
  return scriptedAdapter(options.id, {
    name: options.name ?? options.id,
    type: options.type,
    models: options.models ?? [],
    available: options.available,
    reason: options.reason,
    script: typeof behaviour === 'function' ? (request) => step(behaviour(request)) : [step(behaviour)],
  });
}
