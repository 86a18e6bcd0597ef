import type { ToolAdapter } from '../adapter.js';
import type { ValidChatRequest } from '../request.js';
import type { TurnPlan } from '../sessions/plan.js';
import type { SessionStore } from '../sessions/store.js';
import type { ChatResult, TranscriptMessage } from '../types.js';

/**
 * The commit stage: write the finished turn to its session. The record names the tool's own
 * session when it can resume, the working directory when it is not the session's private one,
 * a fork's origin and a hand-over between tools.
 */
export async function commitTurn(
  sessions: SessionStore,
  adapter: ToolAdapter,
  request: ValidChatRequest,
  plan: TurnPlan,
  result: ChatResult,
): Promise<void> {
  const now = new Date().toISOString();
  const said: TranscriptMessage[] = request.original.map((m) => ({ ...m, at: now }));
  const answer: TranscriptMessage = { role: 'assistant', content: result.message.content, toolId: adapter.id, at: now };
  const nativeId = typeof result.metadata.nativeSessionId === 'string' ? result.metadata.nativeSessionId : undefined;
  const privateCwd = plan.cwd === sessions.workPath(plan.sessionId);
  const base = plan.base;
  const firstUser = request.original.find((m) => m.role === 'user');
  const firstText = firstUser
    ? typeof firstUser.content === 'string'
      ? firstUser.content
      : firstUser.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ')
    : '';
  await sessions.commit(
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
