import {
  AGENT_CAPABILITIES,
  RUNTIME_CAPABILITIES,
  type Activity,
  type AdapterFeatures,
  type ApprovalAnswer,
  type ApprovalRequest,
  type AuthState,
  type Capability,
  type ChatContext,
  type ChatResult,
  type StreamEvent,
  type ToolAdapter,
  type ToolRequest,
  type ToolType,
  type Usage,
  type UsageLimits,
} from '@toolbridge/core';
import { sleep } from '@toolbridge/core/runtime';

/** What one chat of a scripted tool does. */
export interface ScriptStep {
  /** Streamed text pieces; the answer is their concatenation unless `answer` is set. */
  deltas?: string[];
  answer?: string;
  /** Activity streamed before the deltas (a string is one reasoning step). */
  activity?: string | Activity[];
  /** Thrown after `failAfterDeltas` deltas (default: after all of them, and after `delayMs`). */
  error?: Error | (() => Error);
  failAfterDeltas?: number;
  /** Wait before each delta and before ending (or failing). */
  delayMs?: number;
  /** Never end on its own: only the call's signal (or, with `features.interrupt`, an interrupt) ends it. */
  hang?: boolean;
  /** Actions asked through `ctx.approvals` (when the chat has it) after `askAfterDeltas` deltas; answers go to `call.answers`. */
  asks?: ApprovalRequest[];
  askAfterDeltas?: number;
  /** Wait, before answering, until the test calls `finishOne()`. */
  hold?: boolean;
  usage?: Usage;
  model?: string;
  metadata?: Record<string, unknown>;
}

export interface ScriptedAdapterOptions {
  name?: string;
  type?: ToolType;
  /** What each chat does, in order (the last one repeats), or per request. Default: `reply` word by word. */
  script?: ScriptStep[] | ((request: ToolRequest, call: number) => ScriptStep);
  /** The default answer, one delta per word (default `hello from <id>`). */
  reply?: string;
  available?: boolean;
  reason?: string;
  version?: string;
  /** Models discovery reports (default: the configured `<id>Model`, else `<id>-default`). */
  models?: string[];
  /** detect() never settles (a hung tool). */
  hangDetect?: boolean;
  /** A login: `logged-in` / `logged-out`, or the exact state checkAuth answers. Default: a tool without a login. */
  login?: 'none' | 'logged-in' | 'logged-out' | AuthState;
  usageLimits?: UsageLimits;
  features?: AdapterFeatures;
  /** Capabilities detect() adds (e.g. `vision`). */
  detectedCapabilities?: Capability[];
}

export interface ScriptedCall {
  request: ToolRequest;
  ctx: ChatContext;
  startedAt: number;
  endedAt?: number;
  /** The answers to `asks`, in order. */
  answers: ApprovalAnswer[];
}

export interface ScriptedAdapter extends ToolAdapter {
  readonly calls: ScriptedCall[];
  /** What the adapter received, in order. */
  readonly requests: ToolRequest[];
  /** `signal.reason` of every call that was aborted. */
  readonly aborts: unknown[];
  readonly counts: { detect: number; checkAuth: number; chats: number };
  setAuth(auth: AuthState): void;
  /** Let the oldest held chat (`hold: true`) answer. */
  finishOne(): void;
}

const words = (text: string) => text.split(/(?<= )/);

/**
 * The test kit's one in-memory tool: no process, every call scripted and recorded. Like a real
 * adapter it stops with `ctx.signal.reason` when the signal aborts; with `features.interrupt` it
 * ends its turn on `ctx.interrupt` with the text so far (finishReason "interrupted"), as a native
 * interrupt does.
 */
export function scriptedAdapter(id: string, o: ScriptedAdapterOptions = {}): ScriptedAdapter {
  const type = o.type ?? 'agent';
  const modelKey = `${id.replace(/-./g, (m) => m[1]!.toUpperCase())}Model`;
  const calls: ScriptedCall[] = [];
  const aborts: unknown[] = [];
  const counts = { detect: 0, checkAuth: 0, chats: 0 };
  const held: Array<() => void> = [];
  let auth: AuthState | undefined =
    o.login === undefined || o.login === 'none'
      ? undefined
      : o.login === 'logged-in'
        ? { authenticated: true, method: 'api_key' }
        : o.login === 'logged-out'
          ? { authenticated: false, detail: `${id} is not logged in` }
          : o.login;
  const stepFor = (request: ToolRequest, n: number): ScriptStep => {
    if (typeof o.script === 'function') return o.script(request, n);
    if (o.script?.length) return o.script[Math.min(n, o.script.length - 1)]!;
    return { deltas: words(o.reply ?? `hello from ${id}`) };
  };
  const modelOf = (request: ToolRequest, ctx: ChatContext, step: ScriptStep) =>
    step.model ??
    request.model ??
    (ctx.config[modelKey] as string | undefined) ??
    o.models?.[0] ??
    (o.models ? undefined : `${id}-default`);
  const fail = (e: Error | (() => Error)) => (typeof e === 'function' ? e() : e);
  const waitForAbort = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  class Interrupted extends Error {}

  async function* stream(request: ToolRequest, ctx: ChatContext): AsyncIterable<StreamEvent> {
    const call: ScriptedCall = { request, ctx, startedAt: performance.now(), answers: [] };
    const n = counts.chats++;
    calls.push(call);
    ctx.signal.addEventListener('abort', () => aborts.push(ctx.signal.reason), { once: true });
    // Waits end on the call's signal, and on an interrupt when the tool can be interrupted natively.
    const native = o.features?.interrupt === true && ctx.interrupt !== undefined;
    const waits = native ? AbortSignal.any([ctx.signal, ctx.interrupt!]) : ctx.signal;
    const wait = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        if (native && ctx.interrupt!.aborted && !ctx.signal.aborted) throw new Interrupted();
        throw e;
      }
    };
    let said = '';
    const step = stepFor(request, n);
    const model = modelOf(request, ctx, step);
    const askAll = async () => {
      for (const action of step.asks ?? []) if (ctx.approvals) call.answers.push(await ctx.approvals.ask(action));
    };
    try {
      const acts =
        typeof step.activity === 'string'
          ? [{ id: `${id}-r${n}`, kind: 'reasoning', status: 'completed', title: step.activity, text: step.activity } as Activity]
          : (step.activity ?? []);
      for (const activity of acts) yield { type: 'activity', activity };
      const deltas = step.deltas ?? [];
      const failAt = step.failAfterDeltas ?? deltas.length;
      for (const [i, text] of deltas.entries()) {
        if (i === (step.askAfterDeltas ?? 0)) await askAll();
        if (step.error && failAt === i) throw fail(step.error);
        if (step.delayMs) await wait(sleep(step.delayMs, waits));
        said += text;
        yield { type: 'delta', text };
      }
      if (deltas.length <= (step.askAfterDeltas ?? 0)) await askAll();
      if (step.hold) await wait(Promise.race([new Promise<void>((r) => held.push(r)), waitForAbort(waits)]));
      if (step.hang) await wait(waitForAbort(waits));
      if (step.delayMs) await wait(sleep(step.delayMs, waits));
      if (step.error) throw fail(step.error);
      const answer = step.answer ?? deltas.join('');
      const result: ChatResult = {
        message: { role: 'assistant', content: answer },
        usage: step.usage ?? { input_tokens: 3, output_tokens: Math.max(deltas.length, 1) },
        ...(model ? { model } : {}),
        metadata: step.metadata ?? {},
      };
      yield { type: 'result', result };
    } catch (e) {
      if (!(e instanceof Interrupted)) throw e;
      yield {
        type: 'result',
        result: {
          message: { role: 'assistant', content: said },
          usage: { input_tokens: 3, output_tokens: 1 },
          ...(model ? { model } : {}),
          metadata: { ...step.metadata, finishReason: 'interrupted' },
        },
      };
    } finally {
      call.endedAt = performance.now();
    }
  }

  const adapter: ScriptedAdapter = {
    specificationVersion: 'v1',
    id,
    name: o.name ?? `Tool ${id}`,
    type,
    capabilities: type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    features: o.features ?? {},
    configSchema: { [modelKey]: { type: 'string', minLength: 1 } },
    calls,
    get requests() {
      return calls.map((c) => c.request);
    },
    aborts,
    counts,
    setAuth: (a) => (auth = a),
    finishOne: () => held.shift()?.(),
    async detect(ctx) {
      counts.detect++;
      if (o.hangDetect) await sleep(3_600_000, ctx.signal);
      if (o.available === false) return { available: false, models: [], reason: o.reason ?? `${id} is not installed` };
      const configured = ctx.config[modelKey] as string | undefined;
      const models = o.models ?? [configured ?? `${id}-default`];
      return {
        available: true,
        version: o.version ?? '1.2.3',
        models,
        ...(models[0] ? { defaultModel: configured ?? models[0] } : {}),
        ...(o.detectedCapabilities ? { capabilities: o.detectedCapabilities } : {}),
      };
    },
    stream,
  };
  if (auth) {
    adapter.checkAuth = async () => {
      counts.checkAuth++;
      return auth!;
    };
    adapter.startAuth = async () => ({
      toolId: id,
      status: 'started',
      authenticated: auth!.authenticated,
      command: `${id} login`,
      instructions: `Run "${id} login" and follow the browser prompt`,
      output: 'Opening browser to sign in…',
      checkedAt: new Date().toISOString(),
    });
  }
  if (o.usageLimits) {
    const limits = o.usageLimits;
    adapter.usageLimits = async () => limits;
  }
  return adapter;
}
