import { parseJsonLine, spawnTurn } from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';
import { sessionFile } from './dirs.js';
import { READ_TOOLS } from './extension.js';
import { PiTurn } from './events.js';
import { policyEnv } from './permissions.js';
import { commonArgs, runEnv, type TurnSettings } from './turn.js';

/** A session core names that Pi no longer has. */
export function missingSession(): ProviderExecutionError {
  return new ProviderExecutionError(`${NAME} cannot continue this conversation: its own session is gone. Start a new session.`, {
    toolId: TOOL_ID,
    publicDetails: { reason: 'native_session_missing' },
  });
}

/**
 * One chat as one `pi --mode json -p` run, the prompt on stdin: a new Pi session, or `--session`
 * (`--fork`) with the file of the one core names; images as `@file` arguments; the level enforced
 * by the extension from `TOOLBRIDGE_PI_POLICY` (and, at read-only, Pi's own `--tools` allow-list
 * too). The interrupt ends the run (Pi has written the session so far) with what was said.
 */
export function jsonTurn(command: string, request: ToolRequest, ctx: ChatContext, turn: TurnSettings): AsyncGenerator<StreamEvent> {
  const run = new PiTurn();
  const permissions = turn.permissions.metadata;
  return spawnTurn(request, ctx, {
    name: NAME,
    toolId: TOOL_ID,
    async launch(files) {
      const resume = request.resume;
      const file = resume ? await sessionFile(turn.runtimeDir, resume.nativeSessionId) : undefined;
      if (resume && !file) throw missingSession();
      const images = await files.images();
      return {
        command,
        args: [
          '--mode',
          'json',
          ...commonArgs(turn.runtimeDir, turn.model, turn.thinking),
          ...(turn.permissions.level === 'read-only' ? ['--tools', READ_TOOLS.join(',')] : []),
          ...(file ? [resume!.fork ? '--fork' : '--session', file] : []),
          ...images.map((f) => `@${f}`),
          '-p',
        ],
        stdin: turn.prompt,
        env: runEnv(ctx.env, turn.runtimeDir, policyEnv(turn.permissions)),
      };
    },
    line(line) {
      const event = parseJsonLine(line);
      return event ? run.accept(event) : [];
    },
    interrupt: 'kill',
    finish(exit, { interrupted }) {
      if (interrupted) return run.result(turn.model, { finishReason: 'interrupted', permissions });
      if (run.error) throw run.error;
      if (exit.exitCode !== 0 || exit.signal || !run.done) {
        const stderr = tail(exit.stderrTail.trim(), 1000);
        throw new ProviderExecutionError(`${NAME} exited with ${exit.signal ?? `code ${exit.exitCode}`}${stderr ? `: ${stderr}` : ''}`, {
          toolId: TOOL_ID,
        });
      }
      return run.result(turn.model, { permissions });
    },
  });
}
