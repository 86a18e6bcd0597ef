import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderConversation, spawnProcess, systemText, toolFailure } from '@toolbridge/adapter-kit';
import type { ChatContext, StreamEvent, ToolRequest } from '@toolbridge/core';
import { buildChatArgs } from './argv.js';
import { TOOL_ID, type EffectiveSettings } from './config.js';
import { StreamParser } from './events.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import type { RateLimitInfo } from './usage-limits.js';

/**
 * One chat as one `claude -p --output-format stream-json` run: the conversation on stdin, system
 * messages through a private file (never argv), in the working directory core chose.
 */
export async function* printTurn(
  o: ClaudeCodeAdapterOptions,
  request: ToolRequest,
  ctx: ChatContext,
  settings: EffectiveSettings,
  onRateLimit: (info: RateLimitInfo) => Promise<void>,
): AsyncGenerator<StreamEvent> {
  try {
    const system = systemText(request.messages);
    let systemPromptFile: string | undefined;
    if (system.trim()) {
      systemPromptFile = path.join(await ctx.scratchDir(), 'system-prompt.md');
      await writeFile(systemPromptFile, system, { mode: 0o600 });
    }
    const mode = o.systemPrompt ?? 'auto';
    const args = buildChatArgs({
      settings,
      model: request.model,
      systemPromptFile,
      systemPromptMode: mode === 'auto' ? (settings.toolAccess === 'none' ? 'replace' : 'append') : mode,
      persistSession: o.persistSessions ?? false,
      extraArgs: o.extraArgs ?? [],
    });
    const proc = spawnProcess({
      command: o.command ?? 'claude',
      args,
      stdin: renderConversation(request.messages, { includeSystem: false }),
      env: { ...ctx.env, CLAUDE_CODE_MAX_RETRIES: String(o.maxRetries ?? 0) },
      cwd: ctx.cwd,
      signal: ctx.signal,
      toolId: TOOL_ID,
    });
    const parser = new StreamParser();
    for await (const line of proc) {
      const { events, rateLimit } = parser.push(line);
      if (rateLimit) await onRateLimit(rateLimit);
      for (const event of events) yield event;
    }
    const exit = await proc.result;
    yield { type: 'result', result: parser.finish(exit) };
  } catch (e) {
    throw toolFailure(e, 'Claude Code', TOOL_ID);
  }
}
