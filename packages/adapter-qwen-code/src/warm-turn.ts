import { permissionReport, renderConversation } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { QwenStreamParser } from './events.js';
import { PERMISSION_NOTES, type QwenTurn } from './spawn.js';
import { approvalRequestOf, decideToolUse } from './warm-approvals.js';
import { controlAnswer, userLine, type QwenProcess } from './warm-process.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** An interrupt answers in milliseconds; a turn that has not ended by then is ended with its process. */
const INTERRUPT_SETTLE_MS = 5_000;

/** A fresh conversation in a process that answered before (`/clear`: a new session id, no model call, ~0.3 s); false when the process ended. */
export async function clearConversation(member: QwenProcess, signal: AbortSignal): Promise<boolean> {
  await member.write(userLine('/clear'));
  const cleared = new QwenStreamParser();
  while (!cleared.done) {
    const line = await member.next(signal);
    if (line === undefined) return (cleared.finish(member.exitInfo), false);
    cleared.push(line);
  }
  member.used = false;
  return true;
}

/** One turn on a warm process that is ready for it; whether the process can take another. */
export async function* warmTurn(
  member: QwenProcess,
  request: ToolRequest,
  ctx: ChatContext,
  turn: QwenTurn,
): AsyncGenerator<StreamEvent, boolean> {
  const parser = new QwenStreamParser();
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    void member.request({ subtype: 'interrupt' }, INTERRUPT_SETTLE_MS).catch(() => undefined);
  };
  ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  try {
    await member.write(userLine(renderConversation(request.messages)));
    while (!parser.done) {
      const line = await member.next(ctx.signal);
      if (line === undefined) {
        parser.finish(member.exitInfo);
        return false;
      }
      const control = line.startsWith('{"type":"control_request"') ? obj(JSON.parse(line)) : undefined;
      const asked = obj(control?.request);
      if (control && asked?.subtype === 'can_use_tool') {
        const action = approvalRequestOf(String(asked.tool_name ?? 'tool'), obj(asked.input) ?? {}, ctx.cwd);
        const answer = await decideToolUse(ctx, turn.permissions.level, action, request.additionalDirs);
        const response = answer.allow
          ? { behavior: 'allow', updatedInput: obj(asked.input) ?? {} }
          : { behavior: 'deny', message: answer.message ?? 'Refused by the user' };
        await member.write(controlAnswer(String(control.request_id), response));
        continue;
      }
      for (const event of parser.push(line)) yield event;
    }
    member.used = true;
    member.session = parser.nativeSessionId ?? member.session;
    const level = turn.permissions.level;
    const permissions = permissionReport(turn.permissions, level, ctx.approvals ? undefined : PERMISSION_NOTES[level]);
    if (interrupted) {
      yield {
        type: 'result',
        result: {
          message: { role: 'assistant', content: parser.textSoFar },
          usage: {},
          ...(parser.modelName ? { model: parser.modelName } : {}),
          metadata: { nativeSessionId: member.session, finishReason: 'interrupted', permissions, transport: 'warm' },
        },
      };
      return true;
    }
    const result = parser.finish(member.exitInfo);
    yield { type: 'result', result: { ...result, metadata: { ...result.metadata, permissions, transport: 'warm' } } };
    return true;
  } finally {
    ctx.interrupt?.removeEventListener('abort', onInterrupt);
  }
}
