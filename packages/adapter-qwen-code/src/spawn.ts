import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  imagesOf,
  nativeSchema,
  permissionReport,
  renderConversation,
  spawnProcess,
  toolFailure,
  writeImageFiles,
  type ResolvedPermissions,
  type RunningProcess,
} from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { buildArgs } from './argv.js';
import { APPROVAL_MODE_OF, NAME, TOOL_ID } from './config.js';
import { QwenStreamParser } from './events.js';
import type { ExitInfo } from './failures.js';
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

/** The prompt: the conversation, then each image as an `@path` Qwen Code inlines (spaces escaped, as it wants them). */
export function promptWithImages(request: ToolRequest, imageFiles: readonly string[]): string {
  const text = renderConversation(request.messages);
  if (imageFiles.length === 0) return text;
  const refs = imageFiles.map((f, i) => `[image ${i + 1}]: @${f.replace(/(\s)/g, '\\$1')}`);
  return `${text}\n\n${refs.join('\n')}`;
}

/** The environment of every Qwen Code run. */
export function runEnv(env: NodeJS.ProcessEnv, node: string): NodeJS.ProcessEnv {
  // Its notice on stderr for yolo (full) runs says what the permission report already says.
  return { ...envWithNode(env, node), QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' };
}

/**
 * One chat as one headless `qwen` run, the prompt on stdin. Images (and a JSON answer's schema)
 * go to the call's scratch directory, which is also an included workspace directory so Qwen Code
 * may read them; core removes it afterwards. No process of the run outlives the call.
 */
export async function* oneShotTurn(
  o: QwenCodeAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: QwenTurn,
): AsyncGenerator<StreamEvent> {
  let proc: RunningProcess | undefined;
  try {
    ctx.signal.throwIfAborted();
    const scratch = await ctx.scratchDir();
    const imageFiles = await writeImageFiles(imagesOf(request.messages), scratch);
    const structured = request.responseFormat ? nativeSchema(request.responseFormat) : undefined;
    const schemaFile = structured ? path.join(scratch, 'schema.json') : undefined;
    if (schemaFile) await writeFile(schemaFile, JSON.stringify(structured!.schema), { mode: 0o600 });
    const level = turn.permissions.level;
    const args = buildArgs({
      approvalMode: APPROVAL_MODE_OF[level],
      model: turn.model,
      ...(request.resume ? { resume: request.resume } : {}),
      includeDirectories: [...request.additionalDirs, ...(imageFiles.length ? [scratch] : [])],
      ...(schemaFile ? { schemaFile } : {}),
      streamInput: false,
      extraArgs: o.extraArgs ?? [],
    });
    proc = spawnProcess({
      command: o.command ?? 'qwen',
      args,
      stdin: promptWithImages(request, imageFiles),
      env: runEnv(ctx.env, turn.node),
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
    });
    const parser = new QwenStreamParser();
    let exit: ExitInfo = { exitCode: null, signal: null, stderrTail: '' };
    let grace: NodeJS.Timeout | undefined;
    try {
      for await (const line of proc) {
        if (parser.done) continue;
        for (const event of parser.push(line)) yield event;
        if (parser.done) grace = setTimeout(() => proc?.kill(), AFTER_RESULT_GRACE_MS);
      }
      exit = await proc.result;
    } catch (e) {
      // Ended by us after its answer: the answer stands.
      if (!parser.done) throw e;
    } finally {
      clearTimeout(grace);
    }
    const result = parser.finish(exit);
    const content = structured ? unwrapAnswer(result.message.content, structured.wrapped) : result.message.content;
    const permissions = permissionReport(turn.permissions, level, PERMISSION_NOTES[level]);
    yield {
      type: 'result',
      result: { ...result, message: { role: 'assistant', content }, metadata: { ...result.metadata, permissions, transport: 'spawn' } },
    };
  } catch (e) {
    throw toolFailure(e, NAME, TOOL_ID);
  } finally {
    if (proc) {
      proc.kill();
      await proc.result.catch(() => undefined);
    }
  }
}
