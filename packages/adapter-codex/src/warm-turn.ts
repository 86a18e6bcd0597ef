import { classifyFailure, imagesOf } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { raceAbort } from '@toolbridge/core/runtime';
import { isApprovalRequest, ThreadApprovals } from './warm-approvals.js';
import { AppServerTurn } from './warm-events.js';
import { RpcError, type AppServer, type Notification } from './warm-process.js';
import { CodexEventParser } from './events.js';
import { LEVEL_OF } from './config.js';
import { CODEX_FAILURES, codexFacts, TOOL_ID } from './failures.js';
import { turnPrompt } from './input.js';
import { readLastTurn } from './rollout.js';
import type { TurnSettings } from './turn.js';

type Json = Record<string, unknown>;

/** Bound on a thread request (start/resume/fork: tens of ms here) and on the clean-up after a turn. */
const RPC_TIMEOUT_MS = 30_000;
const CLEANUP_TIMEOUT_MS = 2_000;

export interface WarmTurnOptions {
  ephemeral?: boolean;
  planTool: boolean;
}

/** Thread settings: what `codex exec` takes as flags, here per thread (so one server serves every setting). */
function threadParams(request: ToolRequest, ctx: ChatContext, turn: TurnSettings, o: WarmTurnOptions): Json {
  const workspace = turn.permissions.sandbox === 'workspace-write';
  return {
    cwd: ctx.cwd,
    sandbox: turn.permissions.sandbox,
    // With approvals, "untrusted": every command but Codex's known-safe reads, and every file change,
    // is asked (under "on-request" a command inside the sandbox never is). Without, nobody is there
    // to answer: the default ("on-request") could still ask, so "never".
    approvalPolicy: ctx.approvals ? 'untrusted' : 'never',
    // The model's raw calls, to see which asks to leave the sandbox (warm-approvals.ts).
    ...(ctx.approvals ? { experimentalRawEvents: true } : {}),
    ...(turn.model ? { model: turn.model } : {}),
    config: {
      ...turn.permissions.config,
      // What `--add-dir` sets for exec.
      ...(workspace && request.additionalDirs.length ? { 'sandbox_workspace_write.writable_roots': [...request.additionalDirs] } : {}),
      ...(o.planTool ? { 'tools.update_plan.enabled': true } : {}),
    },
  };
}

const idOfTurn = (started: Json) => String((started.turn as Json | undefined)?.id);

/** The value, or undefined when it fails or takes longer than the clean-up may. */
function withinCleanup<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), CLEANUP_TIMEOUT_MS)));
  return Promise.race([work.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

function failureOfRpc(e: unknown): Error {
  // "no rollout found for thread id …": classified like exec's message.
  return e instanceof RpcError ? classifyFailure(codexFacts(`${e.method}: ${e.message}`), CODEX_FAILURES) : (e as Error);
}

/**
 * One chat turn on a warm `codex app-server`: a new thread (`thread/start`) for a fresh
 * conversation, or the session's thread (`thread/resume`, `thread/fork`), then `turn/start`. The
 * notifications go through exec's parser, so both transports report the same steps and answer.
 * However the turn ends early (deadline, cancel, a consumer that stops), it is interrupted; a
 * command still running then (an interrupt does not stop it) marks the server for recycling.
 */
export async function* warmTurn(
  server: AppServer,
  request: ToolRequest,
  ctx: ChatContext,
  turn: TurnSettings,
  o: WarmTurnOptions,
): AsyncGenerator<StreamEvent> {
  const params = threadParams(request, ctx, turn, o);
  const call = (method: string, p: Json) =>
    raceAbort(server.request(method, p, RPC_TIMEOUT_MS), ctx.signal).catch((e) => Promise.reject(failureOfRpc(e)));
  const opened = turn.resume?.fork
    ? await call('thread/fork', { threadId: turn.resume.threadId, ...params })
    : turn.resume
      ? await call('thread/resume', { threadId: turn.resume.threadId, ...params, excludeTurns: true })
      : await call('thread/start', { ...params, ephemeral: o.ephemeral === true });
  const thread = (opened.thread ?? {}) as Json;
  const threadId = String(thread.id);
  const rollout = typeof thread.path === 'string' ? thread.path : undefined;

  const queue: Notification[] = [];
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const approvals = ctx.approvals
    ? new ThreadApprovals(ctx, LEVEL_OF[turn.permissions.sandbox], request.additionalDirs, rollout)
    : undefined;
  const offThread = server.onThread(threadId, (n) => {
    approvals?.observe(n);
    queue.push(n);
    poke();
  });
  const offRequests = approvals
    ? server.onThreadRequest(threadId, (method, p) => (isApprovalRequest(method) ? approvals.decide(method, p) : undefined))
    : () => undefined;
  const offExit = server.onExit(poke);
  ctx.signal.addEventListener('abort', poke);
  ctx.interrupt?.addEventListener('abort', poke);
  let interrupting = false;
  const state = new AppServerTurn();
  const parser = new CodexEventParser();
  parser.threadId = threadId;
  let turnId: string | undefined;
  let turnStart: Promise<Json> | undefined;
  try {
    const { prompt, schema } = turnPrompt(request);
    const images = imagesOf(request.messages).map((i) => ({ type: 'image', url: `data:${i.mediaType};base64,${i.data}` }));
    turnStart = server.request(
      'turn/start',
      { threadId, input: [{ type: 'text', text: prompt, text_elements: [] }, ...images], ...(schema ? { outputSchema: schema } : {}) },
      RPC_TIMEOUT_MS,
    );
    const started = await raceAbort(turnStart, ctx.signal).catch((e) => Promise.reject(failureOfRpc(e)));
    turnId = idOfTurn(started);
    state.turnId = turnId;
    while (!state.end) {
      const n = queue.shift();
      if (n) {
        for (const e of state.push(n)) for (const event of parser.pushEvent(e)) yield event;
        continue;
      }
      ctx.signal.throwIfAborted();
      if (ctx.interrupt?.aborted && !interrupting) {
        // The caller's interrupt: stop the turn natively; `turn/completed` (status "interrupted", in ~22 ms) follows.
        interrupting = true;
        void server.request('turn/interrupt', { threadId, turnId }, CLEANUP_TIMEOUT_MS).catch(() => undefined);
        continue;
      }
      if (!server.alive)
        throw new ProviderExecutionError("Codex's app-server exited during the chat", { toolId: TOOL_ID, retryable: true });
      await new Promise<void>((r) => (wake = r));
    }
    if (state.end.status === 'interrupted' && interrupting) {
      // A command the turn started may outlive the interrupt: then the server goes once its turns are done.
      if (state.running.size > 0 || server.hasStrayProcesses()) server.recycling = true;
      yield* interruptedResult(parser, state, opened, threadId, turn, o);
      return;
    }
    if (state.end.status === 'failed')
      throw classifyFailure(codexFacts(state.end.error ?? parser.lastError ?? 'turn failed'), CODEX_FAILURES);
    if (state.end.status !== 'completed')
      throw new ProviderExecutionError(`Codex ended the turn (${state.end.status})`, { toolId: TOOL_ID });
    // Blocked commands and rejected patches have no item here either; the thread's log has them.
    const last = rollout ? await readLastTurn(rollout) : undefined;
    for (const activity of last?.blocked ?? []) if (!state.seen.has(activity.id)) yield { type: 'activity', activity };
    const tail: StreamEvent[] = [];
    parser.settle(tail);
    yield* tail;
    if (parser.answer === undefined) throw new ProviderExecutionError('Codex finished without an answer', { toolId: TOOL_ID });
    yield turnResult(parser.answer, parser, opened, threadId, turn, o);
  } finally {
    offThread();
    offRequests();
    offExit();
    ctx.signal.removeEventListener('abort', poke);
    ctx.interrupt?.removeEventListener('abort', poke);
    // Ended while `turn/start` was unanswered (a loaded host reads the answer late; the turn may be
    // running, its command too): wait briefly for the turn's id, so the turn is interrupted all the same.
    if (!turnId && turnStart && server.alive) {
      const id = await withinCleanup(turnStart.then(idOfTurn, () => null));
      // Still unanswered: a turn that may run and cannot be interrupted, so its server goes.
      if (id === undefined) server.recycling = true;
      else if (id !== null) turnId = id;
    }
    if (!state.end && turnId && server.alive) {
      // A model that never answers hangs the turn for good: the deadline is ours to enforce.
      await server.request('turn/interrupt', { threadId, turnId }, CLEANUP_TIMEOUT_MS).catch(() => undefined);
      // An interrupt does not stop a command the turn started, and app-server may not even have
      // reported it yet (measured: a running `sleep` with no item/started): look for processes.
      if (state.running.size > 0 || server.hasStrayProcesses()) server.recycling = true;
    }
    // The thread is on disk: a later turn of its session loads it again.
    if (server.alive) void server.request('thread/unsubscribe', { threadId }, CLEANUP_TIMEOUT_MS).catch(() => undefined);
  }
}

/** The turn's `result`: the answer and what the metadata says about the thread and settings. */
function turnResult(
  answer: string,
  parser: CodexEventParser,
  opened: Json,
  threadId: string,
  turn: TurnSettings,
  o: WarmTurnOptions,
  extra: Json = {},
): StreamEvent {
  const model = turn.model ?? (typeof opened.model === 'string' ? opened.model : undefined);
  return {
    type: 'result',
    result: {
      message: { role: 'assistant', content: answer },
      usage: parser.usage,
      ...(model ? { model } : {}),
      metadata: {
        ...(o.ephemeral ? {} : { nativeSessionId: threadId }),
        ...turn.metadata,
        ...extra,
        ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
        transport: 'warm',
      },
    },
  };
}

/** The end of an interrupted turn: the text so far (the last finished message, else the one being written) and `finishReason: "interrupted"`. */
function* interruptedResult(
  parser: CodexEventParser,
  state: AppServerTurn,
  opened: Json,
  threadId: string,
  turn: TurnSettings,
  o: WarmTurnOptions,
): Generator<StreamEvent> {
  const tail: StreamEvent[] = [];
  parser.settle(tail);
  yield* tail;
  const text = parser.answer ?? state.partialText;
  if (parser.answer === undefined && text) yield { type: 'delta', text };
  yield turnResult(text, parser, opened, threadId, turn, o, { finishReason: 'interrupted' });
}
