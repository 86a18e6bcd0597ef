import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { mcpConfigJson, parseJsonLine, spawnTurn, systemText, type RunFiles, type RunningProcess } from '@toolbridge/adapter-kit';
import { answerToolUse, controlResponseLine } from './approvals.js';
import type { ChatContext, PermissionLevel, StreamEvent, ToolRequest } from '@toolbridge/core';
import { buildChatArgs } from './argv.js';
import { LEVEL_OF, TOOL_ID } from './config.js';
import { StreamParser } from './events.js';
import { controlLine, initializeLine, userLine } from './input.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import type { AccessPlan } from './permissions.js';
import { nativeSchema } from './structured.js';
import type { RateLimitInfo } from './usage-limits.js';

/** What a turn runs with, decided by the adapter from the request and the config. */
export interface TurnSettings {
  access: AccessPlan;
  model?: string;
  maxTurns?: number;
  persist: boolean;
}

/**
 * After its `result`, a run whose stdin is closed exits within ~25 ms, unless a background Bash
 * job it started still runs: then it waits for the job and asks the model again (measured on
 * 2.1.330). The answer is in; such a run is ended after this grace.
 */
const AFTER_RESULT_GRACE_MS = 1500;

/** The files a run needs, in the call's private scratch directory (removed by core afterwards). */
async function claudeFiles(
  files: RunFiles,
  request: ToolRequest,
): Promise<{ tmpDir: string; systemPromptFile?: string; mcpConfigFile?: string }> {
  // Claude Code leaves files under $TMPDIR (probe files, image copies, background job output): a private one goes with
  // the call (shared by its repair turn).
  const tmpDir = path.join(await files.scratch(), 'tmp');
  await mkdir(tmpDir, { mode: 0o700, recursive: true });
  // The request's MCP servers go by file: their env and headers hold secrets that argv would show to every user.
  const servers = request.mcpServers ?? [];
  const mcpConfigFile = servers.length ? await files.write('mcp.json', JSON.stringify(mcpConfigJson(servers))) : undefined;
  const system = systemText(request.messages);
  const systemPromptFile = system.trim() ? await files.write('system-prompt.md', system) : undefined;
  return { tmpDir, ...(systemPromptFile ? { systemPromptFile } : {}), ...(mcpConfigFile ? { mcpConfigFile } : {}) };
}

/** The environment of a Claude Code run. */
export function runEnv(o: ClaudeCodeAdapterOptions, env: NodeJS.ProcessEnv, tmpDir: string, structured: boolean): NodeJS.ProcessEnv {
  return {
    ...env,
    CLAUDE_CODE_MAX_RETRIES: String(o.maxRetries ?? 0),
    TMPDIR: tmpDir,
    // Claude Code's own schema retries are total attempts (default 5); core's one repair turn is the retry policy.
    ...(structured ? { MAX_STRUCTURED_OUTPUT_RETRIES: String(o.structuredAttempts ?? 1) } : {}),
  };
}

/**
 * One chat as one `claude -p --input-format stream-json` run: the turn (and, for a JSON answer,
 * an `initialize` carrying the schema) on stdin, system messages through a private file (never
 * argv), in the working directory core chose; `--resume` continues a session. An approvals chat
 * keeps stdin open for the control protocol (`can_use_tool` answers, an `interrupt`) until its
 * result; a caller's interrupt of any other run ends its process, and the answer is the text so far.
 */
export function printTurn(
  o: ClaudeCodeAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  turn: TurnSettings,
  onRateLimit: (info: RateLimitInfo) => Promise<void>,
): AsyncGenerator<StreamEvent> {
  const structured = request.responseFormat ? nativeSchema(request.responseFormat) : undefined;
  const parser = new StreamParser(structured ? { structured: { wrapped: structured.wrapped } } : {});
  const asks = turn.access.asks;
  return spawnTurn(request, ctx, {
    name: 'Claude Code',
    toolId: TOOL_ID,
    async launch(files) {
      const { tmpDir, systemPromptFile, mcpConfigFile } = await claudeFiles(files, request);
      const mode = o.systemPrompt ?? 'auto';
      const args = buildChatArgs({
        accessArgs: turn.access.args,
        additionalDirs: turn.access.access === 'none' ? [] : request.additionalDirs,
        model: turn.model,
        maxTurns: turn.maxTurns,
        systemPromptFile,
        systemPromptMode: mode === 'auto' ? (turn.access.access === 'none' ? 'replace' : 'append') : mode,
        persistSession: turn.persist,
        ...(request.resume ? { resume: request.resume } : {}),
        ...(mcpConfigFile ? { mcp: { configFile: mcpConfigFile, servers: request.mcpServers!.map((m) => m.name) } } : {}),
        extraArgs: o.extraArgs ?? [],
      });
      return {
        command: o.command ?? 'claude',
        args,
        stdin: (structured || asks ? initializeLine('init', structured?.schema) : '') + userLine(request.messages),
        ...(asks ? { interactive: true } : {}),
        env: runEnv(o, ctx.env, tmpDir, structured !== undefined),
      };
    },
    async line(line, proc) {
      if (asks) answerControl(line, proc, ctx, LEVEL_OF[turn.access.access], request.additionalDirs);
      const { events, rateLimit } = parser.push(line);
      if (rateLimit) await onRateLimit(rateLimit);
      return events;
    },
    answered: () => parser.done,
    onAnswer: (proc) => (asks ? proc.endInput() : undefined),
    afterAnswerMs: AFTER_RESULT_GRACE_MS,
    // An approvals run is asked natively (it goes on reading its input); any other run is ended.
    interrupt: asks ? (proc) => void proc.write(controlLine('interrupt', { subtype: 'interrupt' })).catch(() => undefined) : 'kill',
    finish(exit, { interrupted }) {
      // A killed run's session may be cut mid-write: the interrupted answer then names none, and core resends the transcript.
      const result = interrupted ? parser.finishInterrupted(exit, undefined, asks) : parser.finish(exit);
      return { ...result, metadata: { ...result.metadata, permissions: turn.access.report } };
    },
  });
}

/** Answer a `can_use_tool` control request of an approvals run (through the kit's `approveAction`). */
function answerControl(
  line: string,
  proc: RunningProcess,
  ctx: ChatContext,
  level: PermissionLevel,
  additionalDirs: readonly string[],
): void {
  const json = parseJsonLine(line);
  if (json?.type !== 'control_request') return;
  const request = (json.request ?? {}) as Record<string, unknown>;
  if (request.subtype !== 'can_use_tool') return;
  void answerToolUse(request, ctx, level, additionalDirs)
    .then((response) => proc.write(controlResponseLine(json.request_id, response)))
    .catch(() => undefined);
}
