import { ProviderExecutionError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { TOOL_ID } from './config.js';
import { sessionFile } from './dirs.js';
import { ASK_TITLE } from './extension.js';
import { PiTurn } from './events.js';
import { decideToolCall } from './permissions.js';
import type { RpcProcess } from './warm-process.js';
import { missingSession } from './spawn.js';
import type { TurnSettings } from './turn.js';

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** Dialogs other than ours get an answer that declines them: a warm turn has nobody at a screen. */
const DIALOGS = new Set(['select', 'confirm', 'input', 'editor']);

/** The model of a `get_state` answer as `provider/id`. */
function modelOf(state: Json): string | undefined {
  const m = rec(state.model);
  return typeof m.provider === 'string' && typeof m.id === 'string' ? `${m.provider}/${m.id}` : undefined;
}

/**
 * Put the process on the chat's session: a new one, the one core names (`switch_session` to its
 * file) or a copy of it (`clone` after switching: a new session with `parentSession`, the original
 * unchanged); then the chat's model (`set_model` writes Toolbridge's runtime settings, never the user's).
 */
async function prepareSession(proc: RpcProcess, request: ToolRequest, turn: TurnSettings, run: PiTurn): Promise<void> {
  const resume = request.resume;
  if (resume) {
    const file = await sessionFile(turn.runtimeDir, resume.nativeSessionId);
    if (!file) throw missingSession();
    await proc.request({ type: 'switch_session', sessionPath: file });
    if (resume.fork) await proc.request({ type: 'clone' });
  } else {
    await proc.request({ type: 'new_session' });
  }
  const state = await proc.request({ type: 'get_state' });
  if (typeof state.sessionId === 'string') run.sessionId = state.sessionId;
  proc.model = modelOf(state);
  if (turn.model && proc.model !== turn.model) {
    const slash = turn.model.indexOf('/');
    await proc.request({ type: 'set_model', provider: turn.model.slice(0, slash), modelId: turn.model.slice(slash + 1) });
    proc.model = turn.model;
  }
}

/** Answer one `extension_ui_request`: ours is decided by the level and the caller's approvals. */
async function answerDialog(proc: RpcProcess, event: Json, turn: TurnSettings, ctx: ChatContext): Promise<void> {
  if (typeof event.id !== 'string' || !DIALOGS.has(String(event.method))) return;
  if (event.method !== 'input' || event.title !== ASK_TITLE)
    return proc.send({ type: 'extension_ui_response', id: event.id, cancelled: true });
  let call: Json = {};
  try {
    call = rec(JSON.parse(String(event.placeholder ?? '')));
  } catch {
    // Unreadable: refused below (an empty tool name is never a read tool).
  }
  const answer = await decideToolCall(String(call.tool ?? ''), rec(call.input), turn.permissions, ctx).catch((e: unknown) => ({
    allow: false,
    message: `Refused by Toolbridge: ${e instanceof Error ? e.message : 'no answer'}`,
  }));
  const value = JSON.stringify({ allow: answer.allow, ...(answer.message ? { reason: answer.message } : {}) });
  await proc.send({ type: 'extension_ui_response', id: event.id, value });
}

/**
 * One chat on a warm `pi --mode rpc` process; the process stays `busy` unless the turn ran to its
 * `agent_end` (one that does not is retired by the caller). `ctx.interrupt` sends `abort`:
 * Pi ends the turn (`stopReason:"aborted"`), keeps the session, and the chat ends with what was said.
 */
export async function* rpcTurn(proc: RpcProcess, request: ToolRequest, ctx: ChatContext, turn: TurnSettings): AsyncGenerator<StreamEvent> {
  const run = new PiTurn();
  proc.busy = true;
  proc.clearEvents();
  await prepareSession(proc, request, turn, run);
  const onInterrupt = () => void proc.request({ type: 'abort' }).catch(() => undefined);
  try {
    await proc.request({
      type: 'prompt',
      message: turn.prompt,
      ...(turn.images.length > 0 ? { images: turn.images.map((i) => ({ type: 'image', data: i.data, mimeType: i.mediaType })) } : {}),
    });
    ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    if (ctx.interrupt?.aborted) onInterrupt();
    while (!run.done) {
      const event = await proc.next(ctx.signal);
      if (!event) break;
      if (event.type === 'extension_ui_request') await answerDialog(proc, event, turn, ctx);
      else yield* run.accept(event);
    }
    if (!run.done) {
      const why = proc.stderrTail.trim();
      throw new ProviderExecutionError(`Pi's RPC process ended during the turn${why ? `: ${tail(why, 500)}` : ''}`, {
        toolId: TOOL_ID,
        retryable: true,
      });
    }
    proc.busy = false;
  } finally {
    ctx.interrupt?.removeEventListener('abort', onInterrupt);
    if (!run.done) onInterrupt();
  }
  const meta = { transport: 'warm', permissions: turn.permissions.metadata };
  if (ctx.interrupt?.aborted || run.aborted) {
    yield { type: 'result', result: run.result(proc.model ?? turn.model, { ...meta, finishReason: 'interrupted' }) };
    return;
  }
  if (run.error) throw run.error;
  yield { type: 'result', result: run.result(proc.model ?? turn.model, meta) };
}
