import { InvalidRequestError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

export interface ChatArgsInput {
  /** Tool set and permission mode flags (`planAccess`). */
  accessArgs: readonly string[];
  /** `--add-dir` for each. */
  additionalDirs: readonly string[];
  model?: string;
  maxTurns?: number;
  /** File holding the system messages; passed by path so the text stays out of `ps`. */
  systemPromptFile?: string;
  systemPromptMode: 'replace' | 'append';
  persistSession: boolean;
  /** Continue this Claude Code session (`--resume`), or start a copy of it (`--fork-session`). */
  resume?: { nativeSessionId: string; fork: boolean };
  /** The request's MCP servers: their config file, and their names (each allowed as `mcp__<name>`). */
  mcp?: { configFile: string; servers: readonly string[] };
  extraArgs: readonly string[];
}

/** Claude Code's session ids are UUIDs; anything else is refused before it reaches argv. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * argv for one stream-json run. The conversation goes on stdin as stream-json, never here: argv
 * is visible to every user on the machine.
 */
export function buildChatArgs(input: ChatArgsInput): string[] {
  const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
  // A value starting with "-" would be read as another option.
  if (input.model?.startsWith('-')) throw new InvalidRequestError(`invalid Claude Code model name "${input.model}"`, { toolId: TOOL_ID });
  if (input.model) args.push('--model', input.model);
  if (input.maxTurns !== undefined) args.push('--max-turns', String(input.maxTurns));
  args.push(...input.accessArgs);
  // --add-dir takes several values: each directory gets its own flag, and an option always follows.
  for (const dir of input.additionalDirs) args.push('--add-dir', dir);
  if (input.resume) {
    if (!SESSION_ID.test(input.resume.nativeSessionId)) {
      throw new InvalidRequestError(`invalid Claude Code session id "${input.resume.nativeSessionId.slice(0, 80)}"`, { toolId: TOOL_ID });
    }
    args.push('--resume', input.resume.nativeSessionId);
    if (input.resume.fork) args.push('--fork-session');
  }
  if (!input.persistSession) args.push('--no-session-persistence');
  // The caller chose these servers for this chat: their tools are allowed (Claude Code denies unlisted MCP tools).
  if (input.mcp) args.push('--mcp-config', input.mcp.configFile, '--allowedTools', input.mcp.servers.map((s) => `mcp__${s}`).join(','));
  if (input.systemPromptFile) {
    args.push(input.systemPromptMode === 'replace' ? '--system-prompt-file' : '--append-system-prompt-file', input.systemPromptFile);
  }
  args.push(...input.extraArgs);
  return args;
}
