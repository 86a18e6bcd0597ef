import type { PromptResponse, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import {
  ProviderExecutionError,
  type ChatContext,
  type StreamEvent,
  type ToolbridgeError,
  type ToolRequest,
  type Usage,
} from '@toolbridge/core';
import { AcpRequestError, type AcpAgent } from './acp-agent.js';
import { openSession, promptBlocks } from './acp-session.js';
import type { AcpTurnEnd, AcpTurnSpec } from './acp-turn-spec.js';
import { activityOfPlan, activityOfToolCall, approvalOfToolCall, mergeToolCall, type AcpToolCall } from './acp-updates.js';
import { approveAction } from './approvals.js';

/** A turn whose agent ends it at every refusal (Copilot) is prompted to go on at most this often. */
const MAX_FOLLOW_UPS = 8;

/**
 * One chat turn on a warm ACP agent: a new session for a fresh conversation (`session/new`), or
 * the chat's session loaded (`session/load`), then `session/prompt`. Updates become deltas and
 * activities; permission requests are decided by `approveAction` (the level first) and answered
 * with the option of that kind, once (never "always": "allow for the session" is Toolbridge's).
 * An interrupt cancels the prompt (`session/cancel`) and ends with the text so far.
 */
export async function* acpTurn(
  agent: AcpAgent,
  request: ToolRequest,
  ctx: ChatContext,
  spec: AcpTurnSpec,
  turn: { said: boolean },
): AsyncGenerator<StreamEvent, AcpTurnEnd> {
  const session = await openSession(agent, request, ctx, spec);
  if ('loadFailed' in session) return session;
  const { sessionId, opened } = session;

  const queue: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const calls = new Map<string, AcpToolCall>();
  const warnings: string[] = [];
  let text = '';
  let failure: ToolbridgeError | undefined;
  let retrying = false;
  let refusal: string | undefined;
  const interrupt = ctx.interrupt;
  const planId = `plan-${sessionId}`;

  const onUpdate = ({ update }: SessionNotification) => {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        if (update.content.type !== 'text') return;
        const notice = spec.notice?.(update.content.text);
        if (notice?.kind === 'notice') warnings.push(update.content.text.trim());
        else if (notice?.kind === 'retrying') retrying = true;
        else if (notice?.kind === 'failure') failure ??= notice.error;
        else {
          text += update.content.text;
          queue.push({ type: 'delta', text: update.content.text });
        }
        break;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const merged = mergeToolCall(calls.get(update.toolCallId), update);
        calls.set(update.toolCallId, merged);
        queue.push({ type: 'activity', activity: activityOfToolCall(merged) });
        break;
      }
      case 'plan':
        queue.push({ type: 'activity', activity: activityOfPlan(planId, update.entries) });
        break;
      default:
        return;
    }
    poke();
  };

  const onPermission = async (params: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
    const seen = calls.has(params.toolCall.toolCallId);
    const merged = mergeToolCall(calls.get(params.toolCall.toolCallId), params.toolCall);
    calls.set(merged.toolCallId, merged);
    // Gemini announces a call only once it runs: the step is shown from the moment it is asked about.
    const show = (call: AcpToolCall) => {
      queue.push({ type: 'activity', activity: activityOfToolCall(call) });
      poke();
    };
    if (!seen) show(merged);
    if (interrupt?.aborted || ctx.signal.aborted) return { outcome: { outcome: 'cancelled' } };
    const ended = new Promise<undefined>((resolve) => {
      const stop = () => resolve(undefined);
      interrupt?.addEventListener('abort', stop, { once: true });
      ctx.signal.addEventListener('abort', stop, { once: true });
    });
    const answer = await Promise.race([approveAction(ctx, spec.level, approvalOfToolCall(merged, ctx.cwd), request.additionalDirs), ended]);
    if (!answer) return { outcome: { outcome: 'cancelled' } };
    // Only "once" answers: an "always" would let the agent skip asking next time, past the caller.
    const option = params.options.find((o) => o.kind === (answer.allow ? 'allow_once' : 'reject_once'));
    if (!answer.allow) {
      refusal = answer.message ?? 'The user refused this action.';
      const failed = { ...merged, status: 'failed' as const };
      calls.set(failed.toolCallId, failed);
      show(failed);
    }
    if (!option) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  };

  const offSession = agent.onSession(sessionId, { update: onUpdate, permission: onPermission });
  const offExit = agent.onExit(poke);
  const cancel = () => agent.notify('session/cancel', { sessionId });
  interrupt?.addEventListener('abort', cancel);
  ctx.signal.addEventListener('abort', poke);
  let ended = false;
  try {
    let prompt = promptBlocks(request);
    let usage: Usage | undefined;
    let response: PromptResponse | undefined;
    for (let followUps = 0; ; followUps++) {
      refusal = undefined;
      let answered: PromptResponse | undefined;
      let error: unknown;
      agent.request<PromptResponse>('session/prompt', { sessionId, prompt }).then(
        (r) => ((answered = r), poke()),
        (e: unknown) => ((error = e ?? new Error('session/prompt failed')), poke()),
      );
      for (;;) {
        const event = queue.shift();
        if (event) {
          turn.said = true;
          yield event;
          continue;
        }
        if (failure || retrying) break;
        if (answered || error) break;
        ctx.signal.throwIfAborted();
        if (!agent.alive)
          throw new ProviderExecutionError(`${spec.name} (ACP) exited during the chat`, { toolId: spec.toolId, retryable: true });
        await new Promise<void>((r) => (wake = r));
      }
      if (failure) throw failure;
      if (retrying) return { retrying: true, said: turn.said };
      if (error) throw error instanceof AcpRequestError ? spec.failure(error.message) : error;
      response = answered!;
      usage = addUsage(usage, spec.usage?.(response));
      // Copilot ends the turn at a refusal; the model hears why only with a next prompt.
      const goOn = refusal && spec.continueAfterRefusal && response.stopReason === 'end_turn' && !interrupt?.aborted;
      if (!goOn || followUps >= MAX_FOLLOW_UPS) break;
      prompt = [{ type: 'text', text: spec.continueAfterRefusal!(refusal!) }];
    }
    ended = true;
    const interrupted = response.stopReason === 'cancelled' && interrupt?.aborted === true;
    if (response.stopReason === 'cancelled' && !interrupted) {
      ctx.signal.throwIfAborted();
      throw new ProviderExecutionError(`${spec.name} cancelled the turn`, { toolId: spec.toolId });
    }
    if (response.stopReason === 'refusal') throw new ProviderExecutionError(`${spec.name} refused to answer`, { toolId: spec.toolId });
    const model = spec.model?.(response, opened);
    const finishReason = interrupted ? 'interrupted' : response.stopReason === 'max_tokens' ? 'length' : undefined;
    yield {
      type: 'result',
      result: {
        message: { role: 'assistant', content: text },
        usage: usage ?? {},
        ...(model ? { model } : {}),
        metadata: {
          nativeSessionId: sessionId,
          ...spec.metadata,
          ...(finishReason ? { finishReason } : {}),
          ...(warnings.length ? { warnings } : {}),
          transport: 'warm',
        },
      },
    };
    return undefined;
  } finally {
    offExit();
    interrupt?.removeEventListener('abort', cancel);
    ctx.signal.removeEventListener('abort', poke);
    // Ended early (deadline, cancel, a consumer that stops, a failure): the agent stops the prompt.
    if (!ended && agent.alive) cancel();
    offSession();
  }
}

/** The usage of a turn that took several prompts: the counts added up. */
function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) return a ?? b;
  const out: Usage = { ...a };
  for (const [k, v] of Object.entries(b)) if (typeof v === 'number') out[k] = (typeof out[k] === 'number' ? (out[k] as number) : 0) + v;
  return out;
}
