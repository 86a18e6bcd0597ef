import {
  AGENT_CAPABILITIES,
  sleep,
  type AuthState,
  type CallContext,
  type ToolRequest,
  type ChatResult,
  type StreamEvent,
  type ToolAdapter,
  type ToolbridgeError,
  type UsageLimits,
} from '@toolbridge/core';

/** What one call of a scripted tool does. */
export interface Behaviour {
  /** Streamed text pieces (the answer is their concatenation unless `answer` is set). */
  deltas?: string[];
  /** A progress item streamed before the deltas. */
  progress?: string;
  answer?: string;
  /** Thrown at the end, after any deltas. */
  error?: ToolbridgeError;
  /** Wait before ending (and between deltas). */
  delayMs?: number;
  /** Never end on its own: only the call's signal ends it. */
  hang?: boolean;
}

export interface RecordedCall {
  kind: 'stream';
  ctx: CallContext;
  startedAt: number;
  endedAt?: number;
}

export interface ScriptedToolOptions {
  /** Calls use these in order; the last one repeats. */
  script?: Behaviour[];
  available?: boolean;
  /** Give the tool a login (checkAuth/startAuth) answering this. */
  auth?: AuthState;
  usageLimits?: UsageLimits;
  model?: string;
}

export interface ScriptedTool {
  adapter: ToolAdapter;
  calls: RecordedCall[];
  checkAuthCalls: number;
  /** Change what the next checkAuth answers. */
  setAuth(auth: AuthState): void;
}

/**
 * An in-memory tool whose calls follow a script. It records every call with its
 * context, so tests can check how often a tool ran and whether its signal aborted.
 * Like a real adapter it stops with `ctx.signal.reason` when the signal aborts.
 */
export function scriptedTool(id: string, options: ScriptedToolOptions = {}): ScriptedTool {
  const script = options.script ?? [{ answer: `${id} says hi` }];
  let auth = options.auth;
  const state: ScriptedTool = {
    calls: [],
    checkAuthCalls: 0,
    setAuth: (a) => (auth = a),
    adapter: undefined as unknown as ToolAdapter,
  };
  const behaviourFor = () => script[Math.min(state.calls.length - 1, script.length - 1)]!;
  const finalResult = (b: Behaviour): ChatResult => ({
    message: { role: 'assistant', content: b.answer ?? (b.deltas ?? []).join('') },
    usage: { input_tokens: 3, output_tokens: 5 },
    model: options.model ?? `${id}-model`,
    metadata: {},
  });
  const end = async (b: Behaviour, ctx: CallContext) => {
    if (b.hang)
      await new Promise<never>((_, reject) => {
        if (ctx.signal.aborted) reject(ctx.signal.reason);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      });
    if (b.delayMs) await sleep(b.delayMs, ctx.signal);
    if (b.error) throw b.error;
  };

  const adapter: ToolAdapter = {
    id,
    name: `Tool ${id}`,
    type: 'agent',
    capabilities: AGENT_CAPABILITIES,
    features: {},
    configSchema: {},
    async detect() {
      const available = options.available ?? true;
      return available
        ? { available, version: '1.0.0', models: [options.model ?? `${id}-model`], defaultModel: options.model ?? `${id}-model` }
        : { available, models: [], reason: `${id} is not installed` };
    },
    async *stream(_request: ToolRequest, ctx: CallContext): AsyncIterable<StreamEvent> {
      const call: RecordedCall = { kind: 'stream', ctx, startedAt: performance.now() };
      state.calls.push(call);
      try {
        const b = behaviourFor();
        if (b.progress)
          yield { type: 'activity', activity: { id: 'r1', kind: 'reasoning', status: 'completed', title: b.progress, text: b.progress } };
        for (const text of b.deltas ?? []) {
          yield { type: 'delta', text };
          if (b.delayMs) await sleep(b.delayMs, ctx.signal);
        }
        await end(b, ctx);
        yield { type: 'result', result: finalResult(b) };
      } finally {
        call.endedAt = performance.now();
      }
    },
  };
  if (auth) {
    adapter.checkAuth = async () => {
      state.checkAuthCalls++;
      return auth!;
    };
    adapter.startAuth = async () => ({
      toolId: id,
      status: 'started',
      authenticated: false,
      command: `${id} login`,
      instructions: 'log in',
      output: '',
      checkedAt: new Date().toISOString(),
    });
  }
  if (options.usageLimits) adapter.usageLimits = async () => options.usageLimits!;
  state.adapter = adapter;
  return state;
}
