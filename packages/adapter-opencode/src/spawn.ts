import { renderConversation, spawnProcess, toolFailure } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { RunAccumulator } from './events.js';
import { exitFailure } from './failures.js';
import type { ResolvedOptions } from './options.js';

/** One chat as one `opencode run --format json [-m provider/model]` run, the conversation on stdin. */
export async function* runTurn(
  o: ResolvedOptions,
  request: ToolRequest,
  ctx: ChatContext,
  model: string | undefined,
): AsyncGenerator<StreamEvent> {
  try {
    const proc = spawnProcess({
      command: o.command,
      args: ['run', '--format', 'json', ...(model ? ['-m', model] : []), ...o.extraArgs],
      // The prompt goes on stdin (never argv); stdin is closed after it, or `opencode run` waits for EOF.
      stdin: renderConversation(request.messages),
      env: ctx.env,
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
    });
    const run = new RunAccumulator();
    for await (const line of proc) {
      for (const event of run.accept(line)) yield event;
    }
    const exit = await proc.result;
    if (run.error) throw run.error;
    if (exit.exitCode !== 0 || exit.signal || !run.sawText) throw exitFailure(exit, run.sawText, run.unrecognisedLines);
    yield { type: 'result', result: run.result(model) };
  } catch (e) {
    throw toolFailure(e, 'OpenCode', TOOL_ID);
  }
}
