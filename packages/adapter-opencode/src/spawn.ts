import { classifyFailure, renderConversation, spawnTurn } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { runArgs } from './argv.js';
import { TOOL_ID } from './config.js';
import { RunAccumulator } from './events.js';
import { exitFacts, OPENCODE_FAILURES } from './failures.js';
import { imageFiles } from './images.js';
import type { ResolvedOptions } from './options.js';
import { envWithPermissions, opencodePermissions } from './permissions.js';
import { SESSION_TITLE, userWantsTitles } from './titles.js';
import type { TurnInputs } from './turn-inputs.js';

/**
 * One chat as one `opencode run --format json` run, the conversation on stdin: a new OpenCode
 * session, or `--session <id>` (with `--fork`) for the one core names; the permission level as
 * rules in `OPENCODE_CONFIG_CONTENT`; images as `-f` files.
 */
export function runTurn(o: ResolvedOptions, request: ToolRequest, ctx: ChatContext, turn: TurnInputs): AsyncGenerator<StreamEvent> {
  const { model, catalogs, sessions } = turn;
  const run = new RunAccumulator();
  const resume = request.resume;
  let permissions: ReturnType<typeof opencodePermissions>['metadata'];
  return spawnTurn(request, ctx, {
    name: 'OpenCode',
    toolId: TOOL_ID,
    async launch() {
      const plan = opencodePermissions(request, ctx);
      permissions = plan.metadata;
      const files = await imageFiles(request, ctx, model, catalogs);
      if (resume) sessions.check(resume.nativeSessionId, ctx.cwd);
      return {
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
        env: envWithPermissions(ctx.env, plan.config),
      };
    },
    line: (line) => run.accept(line),
    finish(exit) {
      if (run.error) throw run.error;
      if (exit.exitCode !== 0 || exit.signal || !run.sawText) throw classifyFailure(exitFacts(exit, run, !!resume), OPENCODE_FAILURES);
      const result = run.result(model);
      if (typeof result.metadata.nativeSessionId === 'string') sessions.remember(result.metadata.nativeSessionId, ctx.cwd);
      return { ...result, metadata: { ...result.metadata, permissions } };
    },
  });
}
