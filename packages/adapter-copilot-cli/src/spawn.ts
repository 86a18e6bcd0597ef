import path from 'node:path';
import {
  classifyFailure,
  imagesOf,
  permissionReport,
  refuseMisreadArgs,
  renderConversation,
  spawnTurn,
  stripAnsi,
  type ResolvedPermissions,
} from '@toolbridge/adapter-kit';
import { ProviderExecutionError, type ChatContext, type PermissionLevel, type StreamEvent, type ToolRequest } from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { buildArgs } from './argv.js';
import { resolveCopilotBinary } from './binary.js';
import { NAME, PERMISSION_FLAGS, TOOL_ID, PERMISSION_NOTES } from './config.js';
import { CopilotEventParser } from './events.js';
import { callFailureFacts, COPILOT_FAILURES, COPILOT_STARTUP_FAILURES, sessionErrorFacts, startupFacts } from './failures.js';
import type { CopilotCliAdapterOptions } from './options.js';
import { readUsageFile } from './usage.js';

export interface CopilotTurn extends ResolvedPermissions {
  model?: string;
}

const SESSION_ID = /^[0-9a-f][0-9a-f-]{6,63}$/i;
/** Copilot echoes each image (base64) in its `user.message` event: room for that on top of the usual cap. */
const DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024;

/** What either transport refuses before starting: option-like model names, bad session ids. */
export function checkRequest(request: ToolRequest, model: string | undefined): void {
  refuseMisreadArgs(request, model, { name: NAME, toolId: TOOL_ID, sessionId: SESSION_ID });
}

/**
 * The environment of a run. `COPILOT_ALLOW_ALL` in the user's environment would approve every
 * tool (and, as "true", trust the folder's hooks and MCP servers): below `full` it is dropped.
 */
export function envFor(env: NodeJS.ProcessEnv, level: PermissionLevel): NodeJS.ProcessEnv {
  if (level === 'full' || env.COPILOT_ALLOW_ALL === undefined) return env;
  const { COPILOT_ALLOW_ALL: _dropped, ...rest } = env;
  return rest;
}

/**
 * One chat as one headless `copilot` run (its native executable), the prompt on stdin. Images
 * and the usage report go to the run's files in the call's scratch directory (removed by core afterwards).
 */
export function runTurn(
  o: CopilotCliAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: CopilotTurn,
): AsyncGenerator<StreamEvent> {
  checkRequest(request, turn.model);
  const parser = new CopilotEventParser();
  let usageFile = '';
  return spawnTurn(request, ctx, {
    name: NAME,
    toolId: TOOL_ID,
    async launch(files) {
      const attachments = await files.images();
      usageFile = path.join(await files.scratch(), 'usage.json');
      const imageBytes = imagesOf(request.messages).reduce((n, i) => n + i.data.length, 0);
      return {
        command: await resolveCopilotBinary(o.command ?? 'copilot', ctx.env),
        args: buildArgs({
          permissionFlags: PERMISSION_FLAGS[turn.level],
          model: turn.model,
          ...(request.resume ? { resume: request.resume.nativeSessionId } : {}),
          addDirs: request.additionalDirs,
          attachments,
          usageFile,
        }),
        stdin: renderConversation(request.messages),
        env: envFor(ctx.env, turn.level),
        maxOutputBytes: (o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT) + imageBytes,
        maxLineBytes: 8 * 1024 * 1024 + imageBytes,
      };
    },
    line: (line) => parser.push(line),
    failed() {
      // After a failure Copilot may go on waiting (a weekly rate limit never exits): the error is what counts.
      if (parser.error) return classifyFailure(sessionErrorFacts(parser.error), COPILOT_FAILURES);
      // Copilot is about to retry a failed call (for up to a minute, with no switch to stop it).
      if (parser.retrying && parser.lastCallFailure && !o.cliRetries)
        return classifyFailure(callFailureFacts(parser.lastCallFailure), COPILOT_FAILURES);
      return undefined;
    },
    async finish(exit) {
      if (parser.exitCode === 0 && !parser.aborted) {
        const { usage, models } = await readUsageFile(usageFile);
        const model = parser.model ?? (models.length === 1 ? models[0] : turn.model);
        const premiumRequests = parser.runUsage?.premiumRequests;
        return {
          message: { role: 'assistant', content: parser.text },
          usage,
          ...(model ? { model } : {}),
          metadata: {
            ...(parser.sessionId ? { nativeSessionId: parser.sessionId } : {}),
            permissions: { ...permissionReport(turn, turn.level, PERMISSION_NOTES[turn.level]), flags: PERMISSION_FLAGS[turn.level] },
            ...(typeof premiumRequests === 'number' ? { premiumRequests } : {}),
            ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
          },
        };
      }
      // No events at all: start-up failures (not signed in, no model, unknown session) are plain text on stderr.
      if (parser.exitCode === undefined && exit.exitCode !== 0 && exit.exitCode !== null)
        throw classifyFailure(startupFacts(exit.stderrTail, exit.exitCode), COPILOT_STARTUP_FAILURES);
      const why = parser.aborted
        ? 'was stopped before it finished'
        : parser.exitCode !== undefined
          ? `finished with exit code ${parser.exitCode}`
          : `ended without a result (${exit.signal ?? `exit code ${exit.exitCode}`})`;
      const stderr = tail(stripAnsi(exit.stderrTail).trim(), 1000);
      throw new ProviderExecutionError(`${NAME} ${why}${stderr ? `: ${stderr}` : ''}`, {
        toolId: TOOL_ID,
        details: { exitCode: exit.exitCode, nonJsonLines: parser.nonJsonLines },
      });
    },
  });
}
