import {
  classifyFailure,
  permissionReport,
  promptWithImagePaths,
  refuseMisreadArgs,
  spawnTurn,
  type ResolvedPermissions,
} from '@toolbridge/adapter-kit';
import { InvalidRequestError, ProviderExecutionError, type ChatContext, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { buildArgs } from './argv.js';
import { geminiDir } from './auth.js';
import { APPROVAL_MODE_OF, NAME, TOOL_ID } from './config.js';
import { GeminiEventParser } from './events.js';
import { cleanStderr, GEMINI_FAILURES, geminiFacts, RetryWatch } from './failures.js';
import type { GeminiCliAdapterOptions } from './options.js';
import { DENIED_TOOLS, policyToml, PERMISSION_NOTES } from './permissions.js';
import { findSessionFile } from './session-files.js';

export interface GeminiTurn extends ResolvedPermissions {
  model?: string;
}

const SESSION_ID = /^[0-9a-f][0-9a-f-]{7,63}$/i;

/** What either transport refuses before starting: option-like model names, bad session ids, commas in directories. */
export function checkRequest(request: ToolRequest, model: string | undefined): void {
  refuseMisreadArgs(request, model, { name: NAME, toolId: TOOL_ID, sessionId: SESSION_ID });
  // --include-directories splits its value on commas.
  const comma = request.additionalDirs.find((d) => d.includes(','));
  if (comma) throw new InvalidRequestError(`${NAME} cannot take a directory whose path has a comma: ${comma}`, { toolId: TOOL_ID });
}

/**
 * One chat as one headless `gemini` run, the prompt on stdin. Images and the permission policy
 * go to the run's files in the call's scratch directory (removed by core afterwards), which is
 * also Gemini's TMPDIR so its error reports go with it.
 */
export function runTurn(o: GeminiCliAdapterOptions, request: ToolRequest, ctx: ChatContext, turn: GeminiTurn): AsyncGenerator<StreamEvent> {
  checkRequest(request, turn.model);
  const parser = new GeminiEventParser();
  const watch = new RetryWatch();
  const approvalMode = APPROVAL_MODE_OF[turn.level];
  return spawnTurn(request, ctx, {
    name: NAME,
    toolId: TOOL_ID,
    async launch(files) {
      const scratch = await files.scratch();
      const imageFiles = await files.images();
      const policy = policyToml(turn.level);
      const policyFile = policy ? await files.write('toolbridge-policy.toml', policy) : undefined;
      let sessionFile: string | undefined;
      if (request.resume?.fork) {
        sessionFile = await findSessionFile(geminiDir(ctx.env), request.resume.nativeSessionId);
        if (!sessionFile) {
          throw new ProviderExecutionError(`${NAME} has no stored session ${request.resume.nativeSessionId} to fork`, { toolId: TOOL_ID });
        }
      }
      return {
        command: o.command ?? 'gemini',
        args: buildArgs({
          approvalMode,
          model: turn.model,
          policyFile,
          ...(request.resume && !request.resume.fork ? { resume: request.resume.nativeSessionId } : {}),
          ...(sessionFile ? { sessionFile } : {}),
          includeDirectories: [...request.additionalDirs, ...(imageFiles.length > 0 ? [scratch] : [])],
        }),
        stdin: promptWithImagePaths(request.messages, imageFiles),
        // One process instead of a relauncher parent that ignores SIGTERM (and ~1.2 s faster).
        env: { ...ctx.env, GEMINI_CLI_NO_RELAUNCH: 'true', TMPDIR: scratch },
        ...(o.maxOutputBytes ? { maxOutputBytes: o.maxOutputBytes } : {}),
        onStderr(text, proc) {
          if (o.cliRetries) return;
          // Gemini is about to retry a failed request (for minutes): end the run with that failure now.
          const attempt = watch.push(text);
          if (attempt) proc.kill(classifyFailure(geminiFacts(attempt), GEMINI_FAILURES));
        },
      };
    },
    line: (line) => parser.push(line),
    finish(exit) {
      const result = parser.result;
      if (result?.status === 'success') {
        const models = result.models;
        const model = models.length === 1 ? models[0] : (turn.model ?? parser.model);
        return {
          message: { role: 'assistant', content: parser.text },
          usage: result.usage,
          ...(model ? { model } : {}),
          metadata: {
            ...(parser.sessionId ? { nativeSessionId: parser.sessionId } : {}),
            permissions: {
              ...permissionReport(turn, turn.level, PERMISSION_NOTES[turn.level]),
              approvalMode,
              deniedTools: DENIED_TOOLS[turn.level],
            },
            ...(result.toolCalls ? { toolCalls: result.toolCalls } : {}),
            ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
          },
        };
      }
      const context = { exitCode: exit.exitCode, stderrTail: exit.stderrTail };
      if (result)
        throw classifyFailure(
          geminiFacts(result.error?.message || parser.warnings.at(-1) || `the run ended with status "${result.status}"`, context),
          GEMINI_FAILURES,
        );
      if (exit.exitCode !== 0 || exit.signal) {
        throw classifyFailure(
          geminiFacts(cleanStderr(exit.stderrTail) || `gemini exited with ${exit.signal ?? `code ${exit.exitCode}`}`, context),
          GEMINI_FAILURES,
        );
      }
      const why = parser.nonJsonLines > 0 ? ` (${parser.nonJsonLines} output line(s) were not JSON events)` : '';
      throw new ProviderExecutionError(`${NAME} ended without a result${why}`, { toolId: TOOL_ID, details: context });
    },
  });
}
