import { renderConversation, spawnProcess, toolFailure, type RunningProcess } from '@toolbridge/adapter-kit';
import { InvalidRequestError, ProviderExecutionError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { buildExecArgs } from './argv.js';
import type { CodexSandboxMode } from './config.js';
import { CodexEventParser } from './events.js';
import { classifyFailure, cleanStderr, TOOL_ID } from './failures.js';
import type { CodexAdapterOptions } from './options.js';
import { sessionModel } from './session-files.js';

export interface ExecTurn {
  sandbox: CodexSandboxMode;
  model?: string;
  codexHome: string;
  metadata: Record<string, unknown>;
}

/**
 * One chat as one `codex exec --json` run, the prompt on stdin. No child outlives the call (core's
 * runner also sweeps helpers Codex moves out of its process group).
 */
export async function* execTurn(
  o: CodexAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: ExecTurn,
): AsyncGenerator<StreamEvent> {
  const command = o.command ?? 'codex';
  // A value starting with "-" would be read by Codex as another option.
  if (turn.model?.startsWith('-')) throw new InvalidRequestError(`invalid Codex model name "${turn.model}"`, { toolId: TOOL_ID });
  ctx.signal.throwIfAborted();
  const parser = new CodexEventParser();
  let proc: RunningProcess | undefined;
  try {
    proc = spawnProcess({
      command,
      args: buildExecArgs({
        sandbox: turn.sandbox,
        model: turn.model,
        ephemeral: o.ephemeral,
        shellSnapshot: o.shellSnapshot,
        extraArgs: o.extraArgs,
      }),
      stdin: renderConversation(request.messages),
      env: ctx.env,
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
      ...(o.maxOutputBytes ? { maxOutputBytes: o.maxOutputBytes } : {}),
    });
    for await (const line of proc) {
      for (const event of parser.push(line)) yield event;
      // Codex exits by itself after a failed turn; the message is what matters, so stop here.
      if (parser.failure !== undefined) throw classifyFailure(parser.failure);
    }
    const exit = await proc.result;
    if (exit.exitCode !== 0 || exit.signal) {
      const message =
        parser.failure ??
        parser.lastError ??
        (cleanStderr(exit.stderrTail) || `codex exited with ${exit.signal ?? `code ${exit.exitCode}`}`);
      throw classifyFailure(message, { stderrTail: exit.stderrTail, exitCode: exit.exitCode });
    }
    // A clean exit without turn.completed still counts when an answer came.
    const tailEvents: StreamEvent[] = [];
    parser.settle(tailEvents);
    yield* tailEvents;
    if (parser.answer === undefined) {
      const why = parser.nonJsonLines > 0 ? ` (${parser.nonJsonLines} output line(s) were not JSON events)` : '';
      const stderr = cleanStderr(exit.stderrTail);
      throw new ProviderExecutionError(`Codex finished without an answer${why}${stderr ? `: ${stderr}` : ''}`, {
        toolId: TOOL_ID,
        details: { exitCode: exit.exitCode, nonJsonLines: parser.nonJsonLines },
      });
    }
    const usedModel =
      turn.model ??
      (parser.threadId && !o.ephemeral
        ? await sessionModel(turn.codexHome, parser.threadId, ctx.signal).catch(() => undefined)
        : undefined);
    yield {
      type: 'result',
      result: {
        message: { role: 'assistant', content: parser.answer },
        usage: parser.usage,
        ...(usedModel ? { model: usedModel } : {}),
        metadata: {
          ...(parser.threadId && !o.ephemeral ? { nativeSessionId: parser.threadId } : {}),
          ...turn.metadata,
          ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
        },
      },
    };
  } catch (error) {
    throw toolFailure(error, 'Codex', TOOL_ID);
  } finally {
    if (proc) {
      proc.kill();
      await proc.result.catch(() => {});
    }
  }
}
