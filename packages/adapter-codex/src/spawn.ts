import { spawnProcess, toolFailure, type RunningProcess } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type Activity, type ChatContext, type StreamEvent, type ToolRequest, type Usage } from '@toolbridge/core';
import { buildExecArgs } from './argv.js';
import { CodexEventParser } from './events.js';
import { classifyFailure, cleanStderr, TOOL_ID } from './failures.js';
import { execInputs } from './inputs.js';
import type { CodexAdapterOptions } from './options.js';
import { findRollout, readLastTurn, threadTotal, turnUsage } from './rollout.js';
import type { TurnSettings } from './turn.js';

/**
 * One chat turn as one `codex exec --json` run, the prompt on stdin: a new thread, or `resume`/
 * `fork` of the thread core names. No child outlives the call (core's runner also sweeps helpers
 * Codex moves out of its process group).
 */
export async function* execTurn(
  o: CodexAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: TurnSettings,
): AsyncGenerator<StreamEvent> {
  const command = o.command ?? 'codex';
  ctx.signal.throwIfAborted();
  const parser = new CodexEventParser();
  let proc: RunningProcess | undefined;
  try {
    const inputs = await execInputs(request, ctx);
    // exec reports the thread's running total; the turn's share is the difference (a fork starts with its source's total).
    const source = turn.resume && !o.ephemeral ? await findRollout(turn.codexHome, turn.resume.threadId, ctx.signal) : undefined;
    const before: Usage | undefined = source ? await threadTotal(source) : undefined;
    proc = spawnProcess({
      command,
      args: buildExecArgs({
        sandbox: turn.permissions.sandbox,
        sandboxConfig: turn.permissions.config,
        model: turn.model,
        profile: turn.profile,
        ephemeral: o.ephemeral,
        shellSnapshot: o.shellSnapshot,
        planTool: o.planTool ?? true,
        addDirs: request.additionalDirs,
        outputSchema: inputs.schemaFile,
        images: inputs.imageFiles,
        resume: turn.resume,
        ...(turn.mcp ? { config: turn.mcp.config } : {}),
        extraArgs: o.extraArgs,
      }),
      stdin: inputs.prompt,
      // The MCP servers' secrets, under the generated names their config refers to.
      env: turn.mcp ? { ...ctx.env, ...turn.mcp.env } : ctx.env,
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
    // What the events do not say (blocked commands, the model Codex chose) is in the thread's log.
    const thread = parser.threadId && !o.ephemeral ? await findRollout(turn.codexHome, parser.threadId, ctx.signal) : undefined;
    const last = thread ? await readLastTurn(thread) : undefined;
    for (const activity of withExecIds(last?.blocked ?? [], parser.openCommands)) yield { type: 'activity', activity };
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
    const usedModel = turn.model ?? last?.model;
    yield {
      type: 'result',
      result: {
        message: { role: 'assistant', content: parser.answer },
        usage: turn.resume ? turnUsage(parser.usage, before) : parser.usage,
        ...(usedModel ? { model: usedModel } : {}),
        metadata: {
          ...(parser.threadId && !o.ephemeral ? { nativeSessionId: parser.threadId } : {}),
          ...turn.metadata,
          ...(inputs.structured ? { structuredOutput: inputs.structured } : {}),
          ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
          transport: 'spawn',
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

/**
 * The rollout names a blocked call by the model's call id; exec names its items `item_N`, and
 * sometimes starts an item for a command it then blocks, never completing it. Such a step keeps
 * exec's id and command, so the caller sees it go from started to failed.
 */
function withExecIds(blocked: readonly Activity[], open: ReadonlyMap<string, string>): Activity[] {
  const left = [...open];
  return blocked.map((a) => {
    if (a.kind !== 'command') return a;
    const i = left.findIndex(([, command]) => command.includes(a.command));
    if (i < 0) return a;
    const [[id, command]] = left.splice(i, 1);
    return { ...a, id: id!, title: command!, command: command! };
  });
}
