import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseJsonLine, spawnProcess, systemText, toolFailure, type RunningProcess } from '@toolbridge/adapter-kit';
import { answerToolUse, controlResponseLine } from './approvals.js';
import type { ChatContext, PermissionLevel, StreamEvent, ToolRequest } from '@toolbridge/core';
import { buildChatArgs } from './argv.js';
import { LEVEL_OF, TOOL_ID } from './config.js';
import { StreamParser } from './events.js';
import type { ExitInfo } from './failures.js';
import { controlLine, initializeLine, userLine } from './input.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import type { AccessPlan } from './permissions.js';
import { nativeSchema } from './structured.js';
import type { RateLimitInfo } from './usage-limits.js';

/** What a turn runs with, decided by the adapter from the request and the config. */
export interface TurnSettings {
  access: AccessPlan;
  model?: string;
  maxTurns?: number;
  persist: boolean;
}

/**
 * After its `result`, a run whose stdin is closed exits within ~25 ms, unless a background Bash
 * job it started still runs: then it waits for the job and asks the model again (measured on
 * 2.1.330). The answer is in; such a run is ended after this grace.
 */
const AFTER_RESULT_GRACE_MS = 1500;

/** The files a run needs, in the call's private scratch directory (removed by core afterwards). */
export async function runFiles(ctx: ChatContext, request: ToolRequest): Promise<{ tmpDir: string; systemPromptFile?: string }> {
  const scratch = await ctx.scratchDir();
  // Claude Code leaves files under $TMPDIR (probe files, image copies, background job output): a private one goes with
  // the call (shared by its repair turn).
  const tmpDir = path.join(scratch, 'tmp');
  await mkdir(tmpDir, { mode: 0o700, recursive: true });
  const system = systemText(request.messages);
  if (!system.trim()) return { tmpDir };
  const systemPromptFile = path.join(scratch, 'system-prompt.md');
  await writeFile(systemPromptFile, system, { mode: 0o600 });
  return { tmpDir, systemPromptFile };
}

/** The environment of a Claude Code run. */
export function runEnv(o: ClaudeCodeAdapterOptions, env: NodeJS.ProcessEnv, tmpDir: string, structured: boolean): NodeJS.ProcessEnv {
  return {
    ...env,
    CLAUDE_CODE_MAX_RETRIES: String(o.maxRetries ?? 0),
    TMPDIR: tmpDir,
    // Claude Code's own schema retries are total attempts (default 5); core's one repair turn is the retry policy.
    ...(structured ? { MAX_STRUCTURED_OUTPUT_RETRIES: String(o.structuredAttempts ?? 1) } : {}),
  };
}

/**
 * One chat as one `claude -p --input-format stream-json` run: the turn (and, for a JSON answer,
 * an `initialize` carrying the schema) on stdin, system messages through a private file (never
 * argv), in the working directory core chose; `--resume` continues a session. An approvals chat
 * keeps stdin open for the control protocol (`can_use_tool` answers, an `interrupt`) until its
 * result; a caller's interrupt of any other run ends its process, and the answer is the text so far.
 */
export async function* printTurn(
  o: ClaudeCodeAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: TurnSettings,
  onRateLimit: (info: RateLimitInfo) => Promise<void>,
): AsyncGenerator<StreamEvent> {
  let proc: RunningProcess | undefined;
  try {
    const { tmpDir, systemPromptFile } = await runFiles(ctx, request);
    const structured = request.responseFormat ? nativeSchema(request.responseFormat) : undefined;
    const mode = o.systemPrompt ?? 'auto';
    const args = buildChatArgs({
      accessArgs: turn.access.args,
      additionalDirs: turn.access.access === 'none' ? [] : request.additionalDirs,
      model: turn.model,
      maxTurns: turn.maxTurns,
      systemPromptFile,
      systemPromptMode: mode === 'auto' ? (turn.access.access === 'none' ? 'replace' : 'append') : mode,
      persistSession: turn.persist,
      ...(request.resume ? { resume: request.resume } : {}),
      extraArgs: o.extraArgs ?? [],
    });
    ctx.signal.throwIfAborted();
    const asks = turn.access.asks;
    const running = spawnProcess({
      command: o.command ?? 'claude',
      args,
      stdin: (structured || asks ? initializeLine('init', structured?.schema) : '') + userLine(request.messages),
      ...(asks ? { interactive: true } : {}),
      env: runEnv(o, ctx.env, tmpDir, structured !== undefined),
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
    });
    proc = running;
    const parser = new StreamParser(structured ? { structured: { wrapped: structured.wrapped } } : {});
    let exit: ExitInfo = { exitCode: null, signal: null, stderrTail: '' };
    let grace: NodeJS.Timeout | undefined;
    const onInterrupt = () =>
      asks ? void running.write(controlLine('interrupt', { subtype: 'interrupt' })).catch(() => undefined) : running.kill();
    ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    try {
      for await (const line of running) {
        if (parser.done) continue;
        if (asks) answerControl(line, running, ctx, LEVEL_OF[turn.access.access], request.additionalDirs);
        const { events, rateLimit } = parser.push(line);
        if (rateLimit) await onRateLimit(rateLimit);
        for (const event of events) yield event;
        if (parser.done) {
          if (asks) running.endInput();
          grace = setTimeout(() => running.kill(), AFTER_RESULT_GRACE_MS);
        }
      }
      exit = await running.result;
    } catch (e) {
      // Ended by us after its answer (or at the caller's interrupt): the answer stands.
      if (!parser.done && !ctx.interrupt?.aborted) throw e;
    } finally {
      clearTimeout(grace);
      ctx.interrupt?.removeEventListener('abort', onInterrupt);
    }
    // A killed run's session may be cut mid-write: the interrupted answer then names none, and core resends the transcript.
    const result = ctx.interrupt?.aborted ? parser.finishInterrupted(exit, undefined, asks) : parser.finish(exit);
    yield { type: 'result', result: { ...result, metadata: { ...result.metadata, permissions: turn.access.report, transport: 'spawn' } } };
  } catch (e) {
    throw toolFailure(e, 'Claude Code', TOOL_ID);
  } finally {
    if (proc) {
      proc.kill();
      await proc.result.catch(() => undefined);
    }
  }
}

/** Answer a `can_use_tool` control request of an approvals run (through the kit's `approveAction`). */
function answerControl(
  line: string,
  proc: RunningProcess,
  ctx: ChatContext,
  level: PermissionLevel,
  additionalDirs: readonly string[],
): void {
  const json = parseJsonLine(line);
  if (json?.type !== 'control_request') return;
  const request = (json.request ?? {}) as Record<string, unknown>;
  if (request.subtype !== 'can_use_tool') return;
  void answerToolUse(request, ctx, level, additionalDirs)
    .then((response) => proc.write(controlResponseLine(json.request_id, response)))
    .catch(() => undefined);
}
