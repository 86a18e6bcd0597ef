import type { StreamEvent } from './adapter.js';
import { failureOf } from './abort.js';
import { ActivityLog } from './activities.js';
import { TimeoutError } from './errors.js';
import { validateChatRequest, type ValidChatRequest } from './request.js';
import { withoutTraces } from './text.js';
import { adapterRequest, checkedAnswer } from './turn/answer.js';
import { commitTurn } from './turn/commit.js';
import type { ChatCallOptions, ExecutionDeps } from './turn/deps.js';
import { TurnHold } from './turn/plan.js';
import { refusalOf } from './turn/refuse.js';
import { noResultError, runAdapter, type RunInputs } from './turn/run.js';
import type { ChatRequest, ChatResult } from './types.js';
import { usageRecordOf } from './usage-ledger.js';

export type { ChatCallOptions, ExecutionDeps } from './turn/deps.js';
export { promptForm } from './turn/answer.js';
export { approvalsRefusal, imagesRefusal, imagesUnsupported, mcpServersRefusal } from './turn/refuse.js';
export { noResultError } from './turn/run.js';

/** Drain a stream into its final result. */
export async function collectStream(events: AsyncIterable<StreamEvent>, name = 'the tool', toolId?: string): Promise<ChatResult> {
  let result: ChatResult | undefined;
  for await (const event of events) if (event.type === 'result') result = event.result;
  if (!result) throw noResultError(name, toolId);
  return result;
}

/**
 * One chat turn on one tool, the single path behind `chat` and `stream`, as a pipeline:
 * validate (`request.ts`) → refuse what cannot run (`turn/refuse.ts`) → plan: a slot, the
 * session, the adapter's context (`turn/plan.ts`) → run the adapter (`turn/run.ts`) → check a
 * structured answer, with one repair turn (`turn/answer.ts`) → commit the session
 * (`turn/commit.ts`); whatever the turn held is given back however it ends.
 */
export async function* runTurn(
  deps: ExecutionDeps,
  toolId: string,
  input: ChatRequest | ValidChatRequest,
  options: ChatCallOptions = {},
): AsyncGenerator<StreamEvent> {
  const adapter = deps.adapterOf(toolId);
  const request = await validateChatRequest(input);
  const refusal = refusalOf(adapter, request, deps.discovery.cache.last(toolId));
  if (refusal) throw refusal;
  const started = performance.now();
  const { ctx, done } = deps.scope.track(toolId, options, `${adapter.name} chat`);
  // close() waits (bounded) for every turn to have cleaned up: its process gone, its files removed.
  let turnEnded!: () => void;
  deps.scope.watch(new Promise<void>((resolve) => (turnEnded = resolve)));
  const hold = new TurnHold(deps, adapter);
  try {
    const { plan, chatCtx } = await hold.open(request, options, ctx);
    const { control } = hold;
    const run: RunInputs = {
      scope: deps.scope,
      adapter,
      ctx: chatCtx,
      callSignal: ctx.signal,
      activities: new ActivityLog(plan.cwd),
      control,
    };
    const structured = request.structured;
    const sent = adapterRequest(adapter, plan.request, chatCtx);
    const first = yield* runAdapter(run, sent.request, structured !== undefined);
    let result = yield* checkedAnswer(run, structured, first, sent.request);
    if (sent.mode) result = { ...result, metadata: { ...result.metadata, structuredOutput: sent.mode } };
    if (control.interrupted) result = { ...result, metadata: { ...result.metadata, finishReason: 'interrupted' } };
    // The tool is done: its slot goes to the next caller while the session is written.
    hold.endRun();
    deps.states.learnSuccess(toolId);
    deps.ledger?.recordChat(usageRecordOf(toolId, { result }, performance.now() - started, { model: request.model }));
    const sessionId = await commitTurn(deps.sessions, adapter, request, plan, result).then(
      () => ((hold.committed = true), plan.sessionId),
      () => undefined,
    );
    yield {
      type: 'result',
      result: {
        ...result,
        ...(sessionId ? { sessionId } : {}),
        activities: run.activities.list(),
        metadata: {
          ...result.metadata,
          toolId,
          latencyMs: Math.round(performance.now() - started),
          ...(hold.approvals ? { approvals: hold.approvals.records } : {}),
          ...(sessionId ? {} : { sessionWarning: 'the session could not be saved; this answer cannot be continued' }),
        },
      },
    };
  } catch (e) {
    // A deadline that passed in the queue: the limiter's own account says more than the bare timeout.
    const err = !hold.acquired && TimeoutError.isInstance(e) ? e : failureOf(e, ctx.signal, toolId);
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
    await hold.dispose();
    done();
    turnEnded();
  }
}
