import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ChatContext, ChatResult, PermissionLevel, StreamEvent, ToolRequest } from '@toolbridge/core';
import { answerToolUse } from './approvals.js';
import { StreamParser } from './events.js';
import { userBlocks } from './input.js';
import type { NativeSchema } from './structured.js';
import type { RateLimitInfo } from './usage-limits.js';
import type { ClaudeProcess } from './warm-process.js';

/**
 * One chat turn on a warm process: a fresh conversation first when the chat continues none and
 * the process has answered before (`/clear`), then the user message; its lines go through the
 * same parser as a spawned run's. However the turn ends early (deadline, cancel, a consumer that
 * stops), the process's `command` interrupts it and waits for it to settle.
 */
export async function* warmTurn(
  member: ClaudeProcess,
  request: ToolRequest,
  ctx: ChatContext,
  o: {
    structured?: NativeSchema;
    /** The chat continues the session the process holds (no fresh conversation). */
    continues: boolean;
    onRateLimit(info: RateLimitInfo): Promise<void>;
    /** `background` once it started a background job. */
    progress: { background: boolean };
    /** An approvals chat: the level its `can_use_tool` answers are checked against. */
    asks?: PermissionLevel;
  },
): AsyncGenerator<StreamEvent, ChatResult> {
  if (!o.continues && member.used) await member.clear(ctx.signal);
  const asks = o.asks;
  member.onToolUse = asks ? (r) => answerToolUse(r, ctx, asks, request.additionalDirs) : undefined;
  // The caller's interrupt stops the turn natively; the process stays and serves the next one.
  const onInterrupt = () => member.interruptTurn();
  ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  const parser = new StreamParser(o.structured ? { structured: { wrapped: o.structured.wrapped } } : {});
  const message = { type: 'user', message: { role: 'user', content: userBlocks(request.messages) }, parent_tool_use_id: null };
  member.used = true;
  member.turns++;
  try {
    for await (const line of member.command(message, ctx.signal)) {
      const { events, rateLimit } = parser.push(line);
      // A background job outlives the turn (and would ask the model again on its own): the process must not serve another chat.
      if (parser.backgroundJobs > 0) o.progress.background = true;
      if (rateLimit) await o.onRateLimit(rateLimit);
      yield* events;
    }
  } finally {
    ctx.interrupt?.removeEventListener('abort', onInterrupt);
    member.onToolUse = undefined;
    if (message.message.content.some((b) => b.type === 'image')) await removeImageCopies(member.tmpDir);
  }
  ctx.signal.throwIfAborted();
  const result = ctx.interrupt?.aborted ? parser.finishInterrupted(member.exitInfo, member.conversation) : parser.finish(member.exitInfo);
  if (typeof result.metadata.nativeSessionId === 'string') member.conversation = result.metadata.nativeSessionId;
  member.model = result.model ?? member.model;
  return result;
}

/**
 * Claude Code keeps a copy of every input image under `$TMPDIR/claude-<uid>/<cwd>/<session>/images/`
 * and never deletes it (measured on 2.1.330). A spawned run's TMPDIR goes with the call; a warm
 * process's lives as long as the process, so the copies are removed after each turn (the model
 * got the image itself; the copy only backs a path Claude Code mentions).
 */
export async function removeImageCopies(tmpDir: string): Promise<void> {
  const dirsIn = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => path.join(dir, d.name));
  for (const uidDir of await dirsIn(tmpDir)) {
    if (!path.basename(uidDir).startsWith('claude-')) continue;
    for (const project of await dirsIn(uidDir))
      for (const session of await dirsIn(project))
        await rm(path.join(session, 'images'), { recursive: true, force: true }).catch(() => undefined);
  }
}
