import type { ChatContext, StreamEvent, ToolAdapter, ToolRequest } from './adapter.js';
import { failureOf, raceAbort } from './abort.js';
import { ActivityLog } from './activities.js';
import type { CallScope } from './call-scope.js';
import type { CallOptions } from './context.js';
import { InvalidRequestError, ProviderExecutionError, TimeoutError, ToolUnavailableError, type ToolbridgeError } from './errors.js';
import type { ConcurrencyLimiter } from './limiter.js';
import { validateChatRequest, type ValidChatRequest } from './request.js';
import { planTurn, type SessionLease, type TurnPlan } from './sessions/plan.js';
import type { SessionStore } from './sessions/store.js';
import { checkAnswer, jsonInstruction, repairPrompt, schemaMismatch } from './structured.js';
import type { ToolStates } from './tool-state.js';
import type { Discovery } from './discovery.js';
import type { ChatRequest, ChatResult, ToolMessage, TranscriptMessage } from './types.js';
import { withoutTraces } from './text.js';
import { scratchSpace } from './workdir.js';

/** Options of one chat turn. */
export interface ChatCallOptions extends CallOptions {
  /** A session the caller already holds (a fallback chat holds its session across attempts). */
  sessionLease?: SessionLease;
}

export interface ExecutionDeps {
  adapterOf(toolId: string): ToolAdapter;
  scope: CallScope;
  limiters: ReadonlyMap<string, ConcurrencyLimiter>;
  states: ToolStates;
  sessions: SessionStore;
  discovery: Discovery;
}

/** "The stream ended without a result": one error, wherever a stream ends early. */
export function noResultError(name: string, toolId?: string): ProviderExecutionError {
  return new ProviderExecutionError(`${name} ended its answer without a final result`, { toolId });
}

/** Drain a stream into its final result. */
export async function collectStream(events: AsyncIterable<StreamEvent>, name = 'the tool', toolId?: string): Promise<ChatResult> {
  let result: ChatResult | undefined;
  for await (const event of events) if (event.type === 'result') result = event.result;
  if (!result) throw noResultError(name, toolId);
  return result;
}

/**
 * Tool policy for a single-tool chat (library `chatWith`/`connect().chat`, `/chat/:toolId`,
 * `/v1`): an unknown id is refused (404, by `adapterOf`); a tool the last discovery found
 * unavailable is refused (503) without starting anything; images to a tool that cannot take them
 * are refused (400). A fallback chat skips such tools instead (see the orchestrator's preflight).
 */
export function refusalOf(deps: ExecutionDeps, adapter: ToolAdapter, request: ValidChatRequest): ToolbridgeError | undefined {
  const known = deps.discovery.cache.last(adapter.id);
  if (known && !known.available)
    return new ToolUnavailableError(known.reason ?? `${adapter.name} is not available`, { toolId: adapter.id });
  if (request.imageCount > 0) {
    // Discovery speaks for the default model; a model the request names is the adapter's to judge.
    // Capabilities a probe could not read are unknown, not "no": the chat may try.
    const vision =
      adapter.features.images === true &&
      (request.model !== undefined || !known || known.capabilities.includes('vision') || known.unknown?.includes('capabilities') === true);
    if (!vision) {
      return new InvalidRequestError(`${adapter.name} cannot take images${known?.defaultModel ? ` (model ${known.defaultModel})` : ''}`, {
        toolId: adapter.id,
        publicDetails: { reason: 'unsupported', feature: 'images' },
      });
    }
  }
  return undefined;
}

function addUsage(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Ask for JSON in words, for adapters that do not constrain the model themselves. */
function withJsonInstruction(messages: readonly ToolMessage[], instruction: string): ToolMessage[] {
  const last = messages.map((m) => m.role).lastIndexOf('user');
  return messages.map((m, i) =>
    i === last ? { ...m, content: [...m.content, { type: 'text' as const, text: `\n\n${instruction}` }] } : m,
  );
}

/**
 * One chat turn on one tool, the single path behind `chat` and `stream`: validate, refuse what
 * cannot run, plan the session, wait for a slot, stream the adapter's events, check a structured
 * answer (one repair turn), record the session, and clean up however it ends.
 */
export async function* runTurn(
  deps: ExecutionDeps,
  toolId: string,
  input: ChatRequest | ValidChatRequest,
  options: ChatCallOptions = {},
): AsyncGenerator<StreamEvent> {
  const adapter = deps.adapterOf(toolId);
  const request = await validateChatRequest(input);
  const refusal = refusalOf(deps, adapter, request);
  if (refusal) throw refusal;
  const started = performance.now();
  const { ctx, done } = deps.scope.track(toolId, options, `${adapter.name} chat`);
  // close() waits (bounded) for every turn to have cleaned up: its process gone, its files removed.
  let turnEnded!: () => void;
  deps.scope.watch(new Promise<void>((resolve) => (turnEnded = resolve)));
  let release: (() => void) | undefined;
  let acquired = false;
  let plan: TurnPlan | undefined;
  let committed = false;
  const scratch = scratchSpace(toolId);
  try {
    // The wait for a slot counts against the call's deadline; callers get slots in the order they asked.
    release = await deps.limiters.get(toolId)!.acquire(ctx.signal);
    acquired = true;
    plan = await planTurn(deps.sessions, adapter, request, options.sessionLease);
    const chatCtx: ChatContext = { ...ctx, cwd: plan.cwd, scratchDir: scratch.get };
    const activities = new ActivityLog(plan.cwd);
    const structured = request.structured;
    let toolRequest: ToolRequest = plan.request;
    if (structured && adapter.features.structuredOutput !== 'native') {
      toolRequest = { ...toolRequest, messages: withJsonInstruction(toolRequest.messages, jsonInstruction(structured.format)) };
    }
    let result = yield* pump(deps, adapter, toolRequest, chatCtx, activities, structured !== undefined);
    if (structured) {
      let check = checkAnswer(result.message.content, structured);
      if (!check.ok) {
        const native =
          typeof result.metadata.nativeSessionId === 'string' && adapter.features.sessions?.resume
            ? result.metadata.nativeSessionId
            : undefined;
        const repair: ToolMessage = { role: 'user', content: [{ type: 'text', text: repairPrompt(check.errors, structured.format) }] };
        const repairRequest: ToolRequest = native
          ? { ...plan.request, messages: [repair], resume: { nativeSessionId: native, fork: false } }
          : {
              ...toolRequest,
              messages: [...toolRequest.messages, { role: 'assistant', content: [{ type: 'text', text: result.message.content }] }, repair],
            };
        const first = result;
        result = yield* pump(deps, adapter, repairRequest, chatCtx, activities, true);
        result = {
          ...result,
          usage: addUsage(first.usage, result.usage),
          metadata: { ...first.metadata, ...result.metadata, repairTurns: 1 },
        };
        check = checkAnswer(result.message.content, structured);
        if (!check.ok) throw schemaMismatch(check.errors, toolId, adapter.name);
      }
      result = { ...result, message: { role: 'assistant', content: check.text }, object: check.value };
      if (check.text) yield { type: 'delta', text: check.text };
    }
    deps.states.learnSuccess(toolId);
    // The tool is done: its slot goes to the next caller while the session is written.
    release();
    release = undefined;
    const turn = plan;
    const sessionId = await commitTurn(deps, adapter, request, turn, result).then(
      () => ((committed = true), turn.sessionId),
      () => undefined,
    );
    yield {
      type: 'result',
      result: {
        ...result,
        ...(sessionId ? { sessionId } : {}),
        activities: activities.list(),
        metadata: {
          ...result.metadata,
          toolId,
          latencyMs: Math.round(performance.now() - started),
          ...(sessionId ? {} : { sessionWarning: 'the session could not be saved; this answer cannot be continued' }),
        },
      },
    };
  } catch (e) {
    // A deadline that passed in the queue: the limiter's own account says more than the bare timeout.
    const err = !acquired && TimeoutError.isInstance(e) ? e : failureOf(e, ctx.signal, toolId);
    // A CLI's stack trace and local paths stay out of what the caller sees (its request's own mistakes are left as said).
    if (err.code !== 'invalid_request') err.message = withoutTraces(err.message);
    deps.states.learnFrom(toolId, err);
    throw err;
  } finally {
    release?.();
    await scratch.dispose();
    plan?.release();
    if (plan?.isNew && !committed) await deps.sessions.discard(plan.sessionId);
    done();
    turnEnded();
  }
}

/**
 * Stream one adapter run: pass deltas (held back when the answer must be checked first) and
 * activities on, return its result. Leaving early ends the adapter's work (its process is
 * killed); after an abort the adapter gets a bounded time to clean up.
 */
async function* pump(
  deps: ExecutionDeps,
  adapter: ToolAdapter,
  request: ToolRequest,
  ctx: ChatContext,
  activities: ActivityLog,
  holdDeltas: boolean,
): AsyncGenerator<StreamEvent, ChatResult> {
  const iterator = adapter.stream(request, ctx)[Symbol.asyncIterator]();
  let result: ChatResult | undefined;
  let exhausted = false;
  try {
    for (;;) {
      const next = await raceAbort(deps.scope.watch(iterator.next()), ctx.signal);
      if (next.done) {
        exhausted = true;
        break;
      }
      const event = next.value;
      if (event.type === 'result') result = event.result;
      else if (event.type === 'activity') yield { type: 'activity', activity: activities.update(event.activity) };
      else if (!holdDeltas && event.text.length > 0) yield event;
    }
  } finally {
    if (!exhausted) {
      const closing = deps.scope.watch(Promise.resolve(iterator.return?.()).catch(() => undefined));
      if (ctx.signal.aborted) await deps.scope.settle(closing);
      else await closing;
    }
  }
  if (!result) throw noResultError(adapter.name, adapter.id);
  return result;
}

/** Write the finished turn to its session. */
async function commitTurn(
  deps: ExecutionDeps,
  adapter: ToolAdapter,
  request: ValidChatRequest,
  plan: TurnPlan,
  result: ChatResult,
): Promise<void> {
  const now = new Date().toISOString();
  const said: TranscriptMessage[] = request.original.map((m) => ({ ...m, at: now }));
  const answer: TranscriptMessage = { role: 'assistant', content: result.message.content, toolId: adapter.id, at: now };
  const nativeId = typeof result.metadata.nativeSessionId === 'string' ? result.metadata.nativeSessionId : undefined;
  const privateCwd = plan.cwd === deps.sessions.workPath(plan.sessionId);
  const base = plan.base;
  const firstUser = request.original.find((m) => m.role === 'user');
  const firstText = firstUser
    ? typeof firstUser.content === 'string'
      ? firstUser.content
      : firstUser.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ')
    : '';
  await deps.sessions.commit(
    {
      id: plan.sessionId,
      toolId: adapter.id,
      ...((result.model ?? base?.model) ? { model: result.model ?? base?.model } : {}),
      createdAt: plan.isNew || !base ? now : base.createdAt,
      updatedAt: now,
      turns: (base?.turns ?? 0) + 1,
      title: base?.title ?? firstText.replace(/\s+/g, ' ').trim().slice(0, 80),
      ...(privateCwd ? {} : { cwd: plan.cwd }),
      ...(plan.forkedFrom ? { forkedFrom: plan.forkedFrom } : base?.forkedFrom ? { forkedFrom: base.forkedFrom } : {}),
      ...(nativeId && adapter.features.sessions?.resume ? { native: { toolId: adapter.id, sessionId: nativeId } } : {}),
      toolChanges: [...(base?.toolChanges ?? []), ...(plan.handoverFrom ? [{ from: plan.handoverFrom, to: adapter.id, at: now }] : [])],
    },
    plan.transcript,
    [...said, answer],
    plan.isNew,
  );
}
