import {
  AGENT_CAPABILITIES,
  RUNTIME_CAPABILITIES,
  sleep,
  type Activity,
  type AdapterFeatures,
  type Capability,
  type ChatContext,
  type ChatResult,
  type StreamEvent,
  type ToolAdapter,
  type ToolRequest,
  type ToolType,
  type Usage,
} from '@toolbridge/core';

/** What one chat of a scripted tool does. */
export interface ScriptStep {
  /** Streamed text pieces; the answer is their concatenation unless `answer` is set. */
  deltas?: string[];
  answer?: string;
  /** Activity streamed before the deltas (a string is one reasoning step). */
  activity?: string | Activity[];
  /** Thrown after `failAfterDeltas` deltas (default: after all of them). */
  error?: Error;
  failAfterDeltas?: number;
  /** Wait before each activity and delta, and before ending. */
  delayMs?: number;
  /** Never end on its own: only the call's signal ends it. */
  hang?: boolean;
  usage?: Usage;
  metadata?: Record<string, unknown>;
}

export interface ScriptedAdapterOptions {
  name?: string;
  type?: ToolType;
  /** What each chat does, in order (the last one repeats). */
  script?: ScriptStep[];
  features?: AdapterFeatures;
  /** Capabilities detect() adds (e.g. `vision`). */
  detectedCapabilities?: Capability[];
}

export interface ScriptedAdapter extends ToolAdapter {
  /** Every chat: the request as core handed it over (validated, images decoded) and its context. */
  readonly calls: Array<{ request: ToolRequest; ctx: ChatContext }>;
  readonly requests: ToolRequest[];
  /** `signal.reason` of every call that was aborted. */
  readonly aborts: unknown[];
}

/**
 * An in-memory tool, no process: every chat scripted (the steps an agent reports, text, failures)
 * and recorded, so tests see exactly what the library hands a tool. The options are a subset of
 * the test kit's scripted adapter. Like a real adapter it stops with `ctx.signal.reason` on abort.
 */
export function scriptedAdapter(id: string, o: ScriptedAdapterOptions = {}): ScriptedAdapter {
  const calls: ScriptedAdapter['calls'] = [];
  const aborts: unknown[] = [];
  const type = o.type ?? 'agent';
  async function* stream(request: ToolRequest, ctx: ChatContext): AsyncIterable<StreamEvent> {
    const n = calls.push({ request, ctx }) - 1;
    ctx.signal.addEventListener('abort', () => aborts.push(ctx.signal.reason), { once: true });
    const step = o.script?.[Math.min(n, o.script.length - 1)] ?? { deltas: [`hello from ${id}`] };
    const acts: Activity[] =
      typeof step.activity === 'string'
        ? [{ id: `${id}-r${n}`, kind: 'reasoning', status: 'completed', title: step.activity, text: step.activity }]
        : (step.activity ?? []);
    for (const activity of acts) {
      if (step.delayMs) await sleep(step.delayMs, ctx.signal);
      yield { type: 'activity', activity };
    }
    const deltas = step.deltas ?? [];
    for (const [i, text] of deltas.entries()) {
      if (step.error && step.failAfterDeltas === i) throw step.error;
      if (step.delayMs) await sleep(step.delayMs, ctx.signal);
      yield { type: 'delta', text };
    }
    if (step.hang) await sleep(3_600_000, ctx.signal);
    if (step.error) throw step.error;
    const result: ChatResult = {
      message: { role: 'assistant', content: step.answer ?? deltas.join('') },
      usage: step.usage ?? { input_tokens: 3, output_tokens: Math.max(deltas.length, 1) },
      model: request.model ?? `${id}-default`,
      metadata: step.metadata ?? {},
    };
    yield { type: 'result', result };
  }
  return {
    id,
    name: o.name ?? `Tool ${id}`,
    type,
    capabilities: type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    features: o.features ?? {},
    configSchema: {},
    calls,
    get requests() {
      return calls.map((c) => c.request);
    },
    aborts,
    async detect() {
      return {
        available: true,
        version: '1.2.3',
        models: [`${id}-default`],
        defaultModel: `${id}-default`,
        ...(o.detectedCapabilities ? { capabilities: o.detectedCapabilities } : {}),
      };
    },
    stream,
  };
}
