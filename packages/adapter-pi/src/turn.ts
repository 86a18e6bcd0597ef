import { imagesOf, renderConversation } from '@toolbridge/adapter-kit';
import { InvalidRequestError, type ChatContext, type ToolRequest } from '@toolbridge/core';
import { piConfig, TOOL_ID } from './config.js';
import { EXTENSION_FILE } from './extension.js';
import { piPermissions, type PiPermissions } from './permissions.js';
import path from 'node:path';

/** What one chat runs with, on either transport. */
export interface TurnSettings {
  /** `provider/id`, when the chat or the config names one (else Pi's own default). */
  model?: string;
  thinking?: string;
  permissions: PiPermissions;
  /** The conversation as one prompt (system text included: Pi's RPC has no per-prompt system prompt). */
  prompt: string;
  images: ReturnType<typeof imagesOf>;
  runtimeDir: string;
}

export function turnSettings(request: ToolRequest, ctx: ChatContext, runtimeDir: string): TurnSettings {
  const config = piConfig.read(ctx.config);
  const model = request.model ?? config.model;
  if (model !== undefined && !/^[^/\s]+\/\S+$/.test(model)) {
    throw new InvalidRequestError(`Pi models are named provider/id (e.g. anthropic/claude-sonnet-4-5), not "${model}"`, {
      toolId: TOOL_ID,
    });
  }
  return {
    ...(model ? { model } : {}),
    ...(config.thinking ? { thinking: config.thinking } : {}),
    permissions: piPermissions(request, ctx),
    prompt: renderConversation(request.messages),
    images: imagesOf(request.messages),
    runtimeDir,
  };
}

/**
 * The environment of every Pi run: Toolbridge's runtime directory (never the user's own, see
 * dirs.ts), no start-up network calls, and none of the extension's settings from the caller.
 */
export function runEnv(env: NodeJS.ProcessEnv, runtimeDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { TOOLBRIDGE_PI_ASK: _a, TOOLBRIDGE_PI_POLICY: _p, ...rest } = env;
  return { ...rest, PI_CODING_AGENT_DIR: runtimeDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', ...extra };
}

/**
 * Flags of every run: the permission extension, no discovered extensions (one could register
 * tools; ours still sees their calls) and no prompt templates (a prompt starting with `/name`
 * would be expanded).
 */
export function commonArgs(runtimeDir: string, model: string | undefined, thinking: string | undefined): string[] {
  return [
    '--no-extensions',
    '--no-prompt-templates',
    '-e',
    path.join(runtimeDir, EXTENSION_FILE),
    ...(model ? ['--model', model] : []),
    ...(thinking ? ['--thinking', thinking] : []),
  ];
}
