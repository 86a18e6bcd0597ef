import { nativeSchema, permissionReport, promptWithImagePaths, spawnTurn, type ResolvedPermissions } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { buildArgs } from './argv.js';
import { APPROVAL_MODE_OF, NAME, TOOL_ID } from './config.js';
import { QwenStreamParser } from './events.js';
import { envWithNode } from './node.js';
import type { QwenCodeAdapterOptions } from './options.js';
import { unwrapAnswer } from './structured.js';

/** What a turn runs with, decided by the adapter from the request and the config. */
export interface QwenTurn {
  permissions: ResolvedPermissions;
  model?: string;
  /** The Node (>= 22) that runs `qwen`. */
  node: string;
}

/**
 * After its `result`, a one-shot run still writes its session and telemetry before it exits; the
 * answer is in, so a run that lingers is ended after this grace.
 */
const AFTER_RESULT_GRACE_MS = 1500;

/** What the permission report says about a level (how exactly Qwen Code's approval mode holds it). */
export const PERMISSION_NOTES: Readonly<Record<string, string>> = {
  'workspace-write':
    'Qwen Code runs with --approval-mode auto-edit: edits inside the workspace are approved, shell commands are refused (no host answers their approval in a one-shot run; with approvals: "ask" they are asked)',
};

/** The environment of every Qwen Code run. */
export function runEnv(env: NodeJS.ProcessEnv, node: string): NodeJS.ProcessEnv {
  // Its notice on stderr for yolo (full) runs says what the permission report already says.
  return { ...envWithNode(env, node), QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' };
}

/**
 * One chat as one headless `qwen` run, the prompt on stdin. Images (and a JSON answer's schema)
 * go to the run's files in the call's scratch directory, which is also an included workspace
 * directory so Qwen Code may read them; core removes it afterwards.
 */
export function oneShotTurn(
  o: QwenCodeAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: QwenTurn,
): AsyncGenerator<StreamEvent> {
  const parser = new QwenStreamParser();
  const structured = request.responseFormat ? nativeSchema(request.responseFormat) : undefined;
  const level = turn.permissions.level;
  return spawnTurn(request, ctx, {
    name: NAME,
    toolId: TOOL_ID,
    async launch(files) {
      const imageFiles = await files.images();
      const schemaFile = structured ? await files.write('schema.json', JSON.stringify(structured.schema)) : undefined;
      const args = buildArgs({
        approvalMode: APPROVAL_MODE_OF[level],
        model: turn.model,
        ...(request.resume ? { resume: request.resume } : {}),
        includeDirectories: [...request.additionalDirs, ...(imageFiles.length ? [await files.scratch()] : [])],
        ...(schemaFile ? { schemaFile } : {}),
        streamInput: false,
        extraArgs: o.extraArgs ?? [],
      });
      return {
        command: o.command ?? 'qwen',
        args,
        stdin: promptWithImagePaths(request.messages, imageFiles),
        env: runEnv(ctx.env, turn.node),
      };
    },
    line: (line) => parser.push(line),
    answered: () => parser.done,
    afterAnswerMs: AFTER_RESULT_GRACE_MS,
    finish(exit) {
      const result = parser.finish(exit);
      const content = structured ? unwrapAnswer(result.message.content, structured.wrapped) : result.message.content;
      const permissions = permissionReport(turn.permissions, level, PERMISSION_NOTES[level]);
      return { ...result, message: { role: 'assistant', content }, metadata: { ...result.metadata, permissions } };
    },
  });
}
