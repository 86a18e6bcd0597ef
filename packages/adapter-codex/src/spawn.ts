import { classifyFailure, spawnTurn } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type Activity, type ChatContext, type StreamEvent, type ToolRequest, type Usage } from '@toolbridge/core';
import { buildExecArgs } from './argv.js';
import { CodexEventParser } from './events.js';
import { CODEX_FAILURES, codexFacts, cleanStderr, TOOL_ID } from './failures.js';
import { execInputs, type ExecInputs } from './input.js';
import type { CodexAdapterOptions } from './options.js';
import { findRollout, readLastTurn, threadTotal, turnUsage } from './rollout.js';
import type { TurnSettings } from './turn.js';

/**
 * One chat turn as one `codex exec --json` run, the prompt on stdin: a new thread, or `resume`/
 * `fork` of the thread core names. The kit's runner also sweeps helpers Codex moves out of its
 * process group.
 */
export function execTurn(o: CodexAdapterOptions, request: ToolRequest, ctx: ChatContext, turn: TurnSettings): AsyncGenerator<StreamEvent> {
  const parser = new CodexEventParser();
  let inputs: ExecInputs;
  let before: Usage | undefined;
  return spawnTurn(request, ctx, {
    name: 'Codex',
    toolId: TOOL_ID,
    async launch(files) {
      inputs = await execInputs(request, files);
      // exec reports the thread's running total; the turn's share is the difference (a fork starts with its source's total).
      const source = turn.resume && !o.ephemeral ? await findRollout(turn.codexHome, turn.resume.threadId, ctx.signal) : undefined;
      before = source ? await threadTotal(source) : undefined;
      return {
        command: o.command ?? 'codex',
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
        ...(o.maxOutputBytes ? { maxOutputBytes: o.maxOutputBytes } : {}),
      };
    },
    line: (line) => parser.push(line),
    // Codex exits by itself after a failed turn; the message is what matters, so stop here.
    failed: () => (parser.failure !== undefined ? classifyFailure(codexFacts(parser.failure), CODEX_FAILURES) : undefined),
    async *finish(exit) {
      if (exit.exitCode !== 0 || exit.signal) {
        const message =
          parser.failure ??
          parser.lastError ??
          (cleanStderr(exit.stderrTail) || `codex exited with ${exit.signal ?? `code ${exit.exitCode}`}`);
        throw classifyFailure(codexFacts(message, { stderrTail: exit.stderrTail, exitCode: exit.exitCode }), CODEX_FAILURES);
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
      return {
        message: { role: 'assistant', content: parser.answer },
        usage: turn.resume ? turnUsage(parser.usage, before) : parser.usage,
        ...(usedModel ? { model: usedModel } : {}),
        metadata: {
          ...(parser.threadId && !o.ephemeral ? { nativeSessionId: parser.threadId } : {}),
          ...turn.metadata,
          ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
        },
      };
    },
  });
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
