import {
  AGENT_CAPABILITIES,
  RUNTIME_CAPABILITIES,
  sleep,
  type CallContext,
  type ToolRequest,
  type StreamEvent,
  type ToolAdapter,
  type ToolType,
  type Usage,
} from '@toolbridge/core';
import { messageText, spawnProcess } from '@toolbridge/adapter-kit';

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

export interface FakeAdapter extends ToolAdapter {
  /** Requests as the adapter received them. */
  readonly requests: ToolRequest[];
  /** `signal.reason` of every aborted call. */
  readonly aborts: unknown[];
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

/** An in-memory tool implementing core's adapter contract, scripted per test. */
export function createFakeAdapter(options: FakeAdapterOptions): FakeAdapter {
  const type = options.type ?? 'agent';
  const requests: ToolRequest[] = [];
  const aborts: unknown[] = [];
  const adapter: FakeAdapter = {
    id: options.id,
    name: options.name ?? options.id,
    type,
    capabilities: type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    features: {},
    configSchema: {},
    requests,
    aborts,
    async detect() {
      return {
        available: options.available ?? true,
        version: '1.0.0',
        models: options.models ?? [],
        ...(options.models?.length ? { defaultModel: options.models[0] } : {}),
        ...(options.available === false ? { reason: options.reason ?? `${options.id} is not installed` } : {}),
      };
    },
    async *stream(request: ToolRequest, ctx: CallContext): AsyncIterable<StreamEvent> {
      requests.push(request);
      ctx.signal.addEventListener('abort', () => aborts.push(ctx.signal.reason), { once: true });
      const b = typeof options.behaviour === 'function' ? options.behaviour(request) : (options.behaviour ?? {});
      const deltas = b.deltas ?? ['Hello', ' from ', options.id];
      for (let i = 0; i < deltas.length; i++) {
        if (b.fail && (b.failAfterDeltas ?? 0) === i) throw b.fail;
        if (b.delayMs) await sleep(b.delayMs, ctx.signal);
        yield { type: 'delta', text: deltas[i]! };
      }
      if (b.fail) throw b.fail;
      if (b.hang) await sleep(24 * 3600 * 1000, ctx.signal);
      yield {
        type: 'result',
        result: {
          message: { role: 'assistant', content: deltas.join('') },
          usage: b.usage ?? {},
          ...((b.model ?? request.model) ? { model: b.model ?? request.model } : {}),
          metadata: {},
        },
      };
    },
  };
  return adapter;
}

/**
 * A tool that really runs a child process (through core's spawnProcess, as the
 * CLI adapters do): each stdout line of `command` is one delta. Proves the
 * bridge's aborts reach the process group.
 */
export function createProcessAdapter(options: { id: string; command: string; env?: NodeJS.ProcessEnv }): ToolAdapter {
  const adapter: ToolAdapter = {
    id: options.id,
    name: options.id,
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    features: {},
    configSchema: {},
    async detect() {
      return { available: true, version: '1.0.0', models: [] };
    },
    async *stream(request, ctx) {
      const proc = spawnProcess({
        command: options.command,
        stdin: request.messages.map((m) => messageText(m)).join('\n'),
        env: options.env ?? ctx.env,
        signal: ctx.signal,
        toolId: options.id,
        killGraceMs: 500,
      });
      const lines: string[] = [];
      for await (const line of proc) {
        lines.push(line);
        yield { type: 'delta', text: line };
      }
      await proc.result;
      yield { type: 'result', result: { message: { role: 'assistant', content: lines.join('') }, usage: {}, metadata: {} } };
    },
  };
  return adapter;
}
