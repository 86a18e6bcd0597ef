import { renderConversation, spawnProcess, toolFailure, type RunningProcess } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { runArgs } from './argv.js';
import { TOOL_ID } from './config.js';
import { RunAccumulator } from './events.js';
import { exitFailure, resumeFailure } from './failures.js';
import { imageFiles, type ModelCatalogs } from './images.js';
import type { ResolvedOptions } from './options.js';
import { envWithPermissions, opencodePermissions } from './permissions.js';
import type { SessionDirs } from './session-dirs.js';
import { SESSION_TITLE, userWantsTitles } from './titles.js';

/**
 * One chat as one `opencode run --format json` run, the conversation on stdin: a new OpenCode
 * session, or `--session <id>` (with `--fork`) for the one core names; the permission level as
 * rules in `OPENCODE_CONFIG_CONTENT`; images as `-f` files.
 */
export async function* runTurn(
  o: ResolvedOptions,
  request: ToolRequest,
  ctx: ChatContext,
  model: string | undefined,
  catalogs: ModelCatalogs,
  sessions: SessionDirs,
): AsyncGenerator<StreamEvent> {
  let proc: RunningProcess | undefined;
  try {
    const permissions = opencodePermissions(request, ctx);
    const env = envWithPermissions(ctx.env, permissions.config);
    const files = await imageFiles(request, ctx, model, catalogs);
    const resume = request.resume;
    if (resume) sessions.check(resume.nativeSessionId, ctx.cwd);
    proc = spawnProcess({
      command: o.command,
      args: runArgs({
        dir: ctx.cwd,
        files,
        extraArgs: o.extraArgs,
        ...(model ? { model } : {}),
        ...(resume ? { resume } : {}),
        // A session we start gets our title (one model call, not two) unless the user's config asks for titles.
        ...(!resume && !userWantsTitles(ctx.env) ? { title: SESSION_TITLE } : {}),
      }),
      // The prompt goes on stdin (never argv); stdin is closed after it, or `opencode run` waits for EOF.
      stdin: renderConversation(request.messages),
      env,
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
    if (resume && exit.exitCode !== 0) throw resumeFailure(exit) ?? exitFailure(exit, run.sawText, run.unrecognisedLines);
    if (exit.exitCode !== 0 || exit.signal || !run.sawText) throw exitFailure(exit, run.sawText, run.unrecognisedLines, run.refusals);
    const result = run.result(model);
    if (typeof result.metadata.nativeSessionId === 'string') sessions.remember(result.metadata.nativeSessionId, ctx.cwd);
    result.metadata = { ...result.metadata, permissions: permissions.metadata, transport: 'spawn' };
    yield { type: 'result', result };
  } catch (e) {
    throw toolFailure(e, 'OpenCode', TOOL_ID);
  } finally {
    if (proc) {
      proc.kill();
      await proc.result.catch(() => {});
    }
  }
}
