import { InvalidRequestError, type CallContext, type ToolRequest } from '@toolbridge/core';
import { codexConfig, LEVEL_OF, TOOL_ID } from './config.js';
import { codexMcpSetup, shellExcludeConfig, type CodexMcpSetup } from './mcp-servers.js';
import { codexPermissions, type CodexPermissions } from './permissions.js';

/** How one chat turn runs, whichever transport runs it. */
export interface TurnSettings {
  permissions: CodexPermissions;
  /** `-m`: the request's model, else `codexModel`; unset lets Codex's config decide. */
  model?: string;
  profile?: string;
  codexHome: string;
  /** The Codex thread to continue or fork. */
  resume?: { threadId: string; fork: boolean };
  /** The chat's MCP servers (`mcpServers`), as config overrides and the environment holding their secrets. */
  mcp?: CodexMcpSetup;
  /** What every answer's metadata says about the settings. */
  metadata: Record<string, unknown>;
}

/** Argv values must not start with "-", or Codex would read them as options. */
function argValue(value: string, what: string): string {
  if (value.startsWith('-') || value.length === 0)
    throw new InvalidRequestError(`invalid Codex ${what} "${value.slice(0, 80)}"`, { toolId: TOOL_ID });
  return value;
}

export function turnSettings(
  request: Pick<ToolRequest, 'model' | 'permissions' | 'resume'>,
  ctx: Pick<CallContext, 'config'>,
  codexHome: string,
): TurnSettings {
  const settings = codexConfig.read(ctx.config);
  const permissions = codexPermissions(request, ctx);
  const model = request.model ?? settings.model;
  const resume = request.resume;
  return {
    permissions,
    ...(model !== undefined ? { model: argValue(model, 'model name') } : {}),
    ...(settings.profile ? { profile: argValue(settings.profile, 'profile') } : {}),
    codexHome,
    ...(resume ? { resume: { threadId: argValue(resume.nativeSessionId, 'session id'), fork: resume.fork } } : {}),
    metadata: { sandbox: permissions.sandbox, permissions: permissions.metadata },
  };
}

/**
 * The turn with the request's MCP servers added (see mcp-servers.ts); `userExclude` is the user's
 * `shell_environment_policy.exclude`, kept beside the generated names.
 */
export function withMcpServers(
  turn: TurnSettings,
  request: Pick<ToolRequest, 'mcpServers'>,
  ask: boolean,
  userExclude: readonly string[],
): TurnSettings {
  if (!request.mcpServers?.length) return turn;
  const setup = codexMcpSetup(request.mcpServers, LEVEL_OF[turn.permissions.sandbox], ask);
  return { ...turn, mcp: { config: { ...setup.config, ...shellExcludeConfig(userExclude) }, env: setup.env } };
}
