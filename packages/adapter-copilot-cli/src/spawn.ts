import path from 'node:path';
import {
  imagesOf,
  renderConversation,
  spawnProcess,
  stripAnsi,
  toolFailure,
  writeImageFiles,
  type RunningProcess,
  permissionReport,
  type ResolvedPermissions,
} from '@toolbridge/adapter-kit';
import {
  InvalidRequestError,
  ProviderExecutionError,
  type ChatContext,
  type PermissionLevel,
  type StreamEvent,
  type ToolRequest,
} from '@toolbridge/core';
import { tail } from '@toolbridge/core/runtime';
import { buildArgs } from './argv.js';
import { resolveCopilotBinary } from './binary.js';
import { NAME, PERMISSION_FLAGS, TOOL_ID, PERMISSION_NOTES } from './config.js';
import { CopilotEventParser } from './events.js';
import { classifyCallFailure, classifySessionError, classifyStartupFailure } from './failures.js';
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
  if (model?.startsWith('-')) throw new InvalidRequestError(`invalid ${NAME} model name "${model}"`, { toolId: TOOL_ID });
  if (request.resume && !SESSION_ID.test(request.resume.nativeSessionId)) {
    throw new InvalidRequestError(`invalid ${NAME} session id "${request.resume.nativeSessionId}"`, { toolId: TOOL_ID });
  }
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
 * and the usage report go to the call's scratch directory (removed by core afterwards). No
 * process of the run outlives the call.
 */
export async function* runTurn(
  o: CopilotCliAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: CopilotTurn,
): AsyncGenerator<StreamEvent> {
  checkRequest(request, turn.model);
  ctx.signal.throwIfAborted();
  const parser = new CopilotEventParser();
  let proc: RunningProcess | undefined;
  try {
    const scratch = await ctx.scratchDir();
    const images = imagesOf(request.messages);
    const attachments = await writeImageFiles(images, scratch);
    const usageFile = path.join(scratch, 'usage.json');
    const imageBytes = images.reduce((n, i) => n + i.data.length, 0);
    proc = spawnProcess({
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
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
      maxOutputBytes: (o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT) + imageBytes,
      maxLineBytes: 8 * 1024 * 1024 + imageBytes,
    });
    for await (const line of proc) {
      yield* parser.push(line);
      // After a failure Copilot may go on waiting (a weekly rate limit never exits): the error is what counts.
      if (parser.error) throw classifySessionError(parser.error);
      // Copilot is about to retry a failed call (for up to a minute, with no switch to stop it).
      if (parser.retrying && parser.lastCallFailure && !o.cliRetries) throw classifyCallFailure(parser.lastCallFailure);
    }
    const exit = await proc.result;
    if (parser.exitCode === 0 && !parser.aborted) {
      const { usage, models } = await readUsageFile(usageFile);
      const model = parser.model ?? (models.length === 1 ? models[0] : turn.model);
      const premiumRequests = parser.runUsage?.premiumRequests;
      yield {
        type: 'result',
        result: {
          message: { role: 'assistant', content: parser.text },
          usage,
          ...(model ? { model } : {}),
          metadata: {
            transport: 'spawn',
            ...(parser.sessionId ? { nativeSessionId: parser.sessionId } : {}),
            permissions: { ...permissionReport(turn, turn.level, PERMISSION_NOTES[turn.level]), flags: PERMISSION_FLAGS[turn.level] },
            ...(typeof premiumRequests === 'number' ? { premiumRequests } : {}),
            ...(parser.warnings.length ? { warnings: parser.warnings } : {}),
          },
        },
      };
      return;
    }
    // No events at all: start-up failures (not signed in, no model, unknown session) are plain text on stderr.
    if (parser.exitCode === undefined && exit.exitCode !== 0 && exit.exitCode !== null)
      throw classifyStartupFailure(exit.stderrTail, exit.exitCode);
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
  } catch (error) {
    throw toolFailure(error, NAME, TOOL_ID);
  } finally {
    if (proc) {
      proc.kill();
      await proc.result.catch(() => {});
    }
  }
}
