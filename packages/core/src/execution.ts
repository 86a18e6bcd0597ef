import type { ChatContext, StreamEvent, ToolAdapter, ToolRequest } from './adapter.js';
import { failureOf, raceAbort } from './abort.js';
import { ActivityLog } from './activities.js';
import type { ApprovalBroker, ApprovalHandler, TurnApprovals } from './approvals-broker.js';
import type { CallScope } from './call-scope.js';
import type { CallOptions } from './context.js';
import {
  AbortedError,
  InvalidRequestError,
  ProviderExecutionError,
  TimeoutError,
  ToolUnavailableError,
  type ToolbridgeError,
} from './errors.js';
import type { ConcurrencyLimiter } from './limiter.js';
import { validateChatRequest, type ValidChatRequest } from './request.js';
import { planTurn, type SessionLease, type TurnPlan } from './sessions/plan.js';
import type { SessionStore } from './sessions/store.js';
import { checkAnswer, jsonInstruction, repairPrompt, schemaMismatch } from './structured.js';
import type { ToolStates } from './tool-state.js';
import type { Discovery } from './discovery.js';
import { usageRecordOf, type UsageLedger } from './usage-ledger.js';
import type { ChatRequest, ChatResult, ToolMessage, TranscriptMessage } from './types.js';
import { withoutTraces } from './text.js';
import { scratchSpace } from './workdir.js';
import { RunningTurns, TurnControl } from './turn-control.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from './wire/approvals.js';

/** Options of one chat turn. */
export interface ChatCallOptions extends CallOptions {
  /** A session the caller already holds (a fallback chat holds its session across attempts). */
  sessionLease?: SessionLease;
  /**
   * With `approvals: "ask"`: decides each approval of the call. Without it an approval waits for
   * an answer through the registry's `approvals.decide` (the bridge's `POST /approvals/:id`).
   */
  onApproval?: ApprovalHandler;
}

export interface ExecutionDeps {
  adapterOf(toolId: string): ToolAdapter;
  scope: CallScope;
  limiters: ReadonlyMap<string, ConcurrencyLimiter>;
  states: ToolStates;
  sessions: SessionStore;
  discovery: Discovery;
  approvals: ApprovalBroker;
  running: RunningTurns;
  /** Where every finished chat is recorded (after it has answered: never before its first byte). */
  ledger?: UsageLedger;
  /** The transport a failed chat would have used (a result names its own). */
  transportOf?(toolId: string): string | undefined;
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
 * unavailable is refused (503) without starting anything; images to a tool that cannot take them,
 * and approvals to an agent that cannot ask, are refused (400). A fallback chat skips such tools instead (see the orchestrator's preflight).
 */
export function refusalOf(deps: ExecutionDeps, adapter: ToolAdapter, request: ValidChatRequest): ToolbridgeError | undefined {
  const cannotAsk = approvalsRefusal(adapter, request);
  if (cannotAsk) return cannotAsk;
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
  return mcpServersRefusal(adapter, request);
}

/** `mcpServers` to a tool that cannot take them: refused (one tool) or skipped (fallback), never silently dropped. */
export function mcpServersRefusal(adapter: ToolAdapter, request: ValidChatRequest): ToolbridgeError | undefined {
  if (!request.mcpServers?.length || adapter.features.mcpServers) return undefined;
  return new InvalidRequestError(`${adapter.name} cannot be given MCP servers`, {
    toolId: adapter.id,
    publicDetails: { reason: 'unsupported', feature: 'mcpServers' },
  });
}

/**
 * An agent that cannot ask (no `features.approvals`) would run every action unasked: a request
 * with `approvals: "ask"` is refused rather than silently not asked. A runtime has no actions to ask about.
 */
export function approvalsRefusal(adapter: ToolAdapter, request: Pick<ValidChatRequest, 'approvals'>): InvalidRequestError | undefined {
  if (request.approvals !== 'ask' || adapter.type !== 'agent' || adapter.features.approvals) return undefined;
  return new InvalidRequestError(`${adapter.name} cannot ask for approvals yet`, {
    toolId: adapter.id,
    publicDetails: { reason: 'unsupported', feature: 'approvals' },
  });
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
  const control = new TurnControl(adapter.features.interrupt === true);
  let unregister: (() => void) | undefined;
  let approvals: TurnApprovals | undefined;
  try {
    // The wait for a slot counts against the call's deadline; callers get slots in the order they asked.
    release = await deps.limiters.get(toolId)!.acquire(ctx.signal);
    acquired = true;
    plan = await planTurn(deps.sessions, adapter, request, options.sessionLease);
    unregister = deps.running.add(plan.sessionId, control);
    if (request.approvals === 'ask') {
      approvals = deps.approvals.openTurn({
        sessionId: plan.sessionId,
        toolId,
        cwd: plan.cwd,
        timeoutMs: request.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
        ...(options.onApproval ? { onApproval: options.onApproval } : {}),
        emit: (approval) => control.push(approval),
      });
      const gate = approvals;
      control.interrupt.signal.addEventListener('abort', () => gate.close('interrupted'), { once: true });
    }
    const chatCtx: ChatContext = {
      ...ctx,
      signal: AbortSignal.any([ctx.signal, control.stop.signal]),
      cwd: plan.cwd,
      scratchDir: scratch.get,
      interrupt: control.interrupt.signal,
      ...(approvals ? { approvals: approvals.gate } : {}),
    };
    const activities = new ActivityLog(plan.cwd);
    const structured = request.structured;
    let toolRequest: ToolRequest = plan.request;
    if (structured && adapter.features.structuredOutput !== 'native') {
      toolRequest = { ...toolRequest, messages: withJsonInstruction(toolRequest.messages, jsonInstruction(structured.format)) };
    }
    let result = yield* pump(deps, adapter, toolRequest, chatCtx, ctx.signal, activities, structured !== undefined, control);
    // An interrupted answer is what there was so far: it is not checked or repaired.
    if (structured && !control.interrupted) {
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
        result = yield* pump(deps, adapter, repairRequest, chatCtx, ctx.signal, activities, true, control);
        result = {
          ...result,
          usage: addUsage(first.usage, result.usage),
          metadata: { ...first.metadata, ...result.metadata, repairTurns: 1 },
        };
        check = checkAnswer(result.message.content, structured);
        if (!check.ok && !control.interrupted) throw schemaMismatch(check.errors, toolId, adapter.name);
      }
      if (check.ok) {
        result = { ...result, message: { role: 'assistant', content: check.text }, object: check.value };
        if (check.text) yield { type: 'delta', text: check.text };
      }
    }
    if (control.interrupted) result = { ...result, metadata: { ...result.metadata, finishReason: 'interrupted' } };
    unregister();
    unregister = undefined;
    approvals?.close('ended');
    deps.states.learnSuccess(toolId);
    // The tool is done: its slot goes to the next caller while the session is written.
    release();
    release = undefined;
    deps.ledger?.recordChat(usageRecordOf(toolId, { result }, performance.now() - started, { model: request.model }));
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
          ...(approvals ? { approvals: approvals.records } : {}),
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
    deps.ledger?.recordChat(
      usageRecordOf(toolId, { errorCode: err.code }, performance.now() - started, {
        model: request.model,
        transport: deps.transportOf?.(toolId),
      }),
    );
    throw err;
  } finally {
    unregister?.();
    approvals?.close('ended');
    control.dispose();
    release?.();
    await scratch.dispose();
    plan?.release();
    if (plan?.isNew && !committed) await deps.sessions.discard(plan.sessionId);
    done();
    turnEnded();
  }
}

/**
 * Stream one adapter run: pass deltas (held back when the answer must be checked first),
 * activities and the turn's approvals on, return its result. Leaving early ends the adapter's
 * work (its process is killed); after an abort the adapter gets a bounded time to clean up. An
 * interrupt the adapter does not end by itself (no native interrupt, or not within the grace)
 * stops its stream here, and the answer is the text so far.
 */
async function* pump(
  deps: ExecutionDeps,
  adapter: ToolAdapter,
  request: ToolRequest,
  ctx: ChatContext,
  callSignal: AbortSignal,
  activities: ActivityLog,
  holdDeltas: boolean,
  control: TurnControl,
): AsyncGenerator<StreamEvent, ChatResult> {
  const iterator = adapter.stream(request, ctx)[Symbol.asyncIterator]();
  let result: ChatResult | undefined;
  let exhausted = false;
  let text = '';
  let next: Promise<IteratorResult<StreamEvent>> | undefined;
  try {
    for (;;) {
      const approval = control.take();
      if (approval) {
        yield { type: 'approval', approval };
        continue;
      }
      if (control.mustStop) break;
      next ??= deps.scope.watch(iterator.next());
      const got = await raceAbort(Promise.race([next, control.next()]), callSignal);
      if ('type' in got) continue;
      next = undefined;
      if (got.done) {
        exhausted = true;
        break;
      }
      const event = got.value;
      if (event.type === 'result') result = event.result;
      else if (event.type === 'activity') yield { type: 'activity', activity: activities.update(event.activity) };
      else if (event.type === 'delta' && event.text.length > 0) {
        text += event.text;
        if (!holdDeltas) yield event;
      }
    }
  } finally {
    if (!exhausted) {
      // An adapter awaiting something (an approval, its tool) is stopped through its signal; a
      // generator resting at a yield is ended by return().
      if (!ctx.signal.aborted && (control.mustStop || next)) {
        control.stop.abort(new AbortedError(control.mustStop ? 'The turn was interrupted' : 'The stream was closed by its consumer'));
      }
      const closing = deps.scope.watch(
        Promise.resolve(next)
          .catch(() => undefined)
          .then(() => iterator.return?.())
          .catch(() => undefined),
      );
      if (ctx.signal.aborted) await deps.scope.settle(closing);
      else await closing;
    }
  }
  if (!result && control.mustStop) {
    return {
      message: { role: 'assistant', content: text },
      usage: {},
      ...(request.model ? { model: request.model } : {}),
      metadata: { finishReason: 'interrupted' },
    };
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
