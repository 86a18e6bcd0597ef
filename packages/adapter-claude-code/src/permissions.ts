import { permissionReport, resolvePermissions, type PermissionReport } from '@toolbridge/adapter-kit';
import type { ChatContext, ToolRequest } from '@toolbridge/core';
import { ACCESS_OF, LEVEL_OF, type ClaudeCodeToolAccess } from './config.js';

/** What a chat may do, as Claude Code flags, and what `result.metadata.permissions` says about it. */
export interface AccessPlan {
  access: ClaudeCodeToolAccess;
  /** Tool set and permission mode flags (without `--add-dir`). */
  args: string[];
  report: PermissionReport;
  /** Claude Code asks before each action (`can_use_tool` control requests), answered through `ctx.approvals`. */
  asks: boolean;
}

const READ = 'Read,Glob,Grep';
const EDIT = `${READ},Edit,Write,NotebookEdit`;
// Safe levels also ignore the user's MCP servers and deny anything that would prompt (nobody can answer).
const LOCKED = ['--strict-mcp-config', '--permission-prompts', 'none'];
/** `full` as root: allow rules instead of bypassPermissions, which Claude Code refuses to root. */
const FULL_ALLOW = 'Bash,Edit,Write,NotebookEdit,Read,Glob,Grep,WebFetch,WebSearch';

const NOTES: Partial<Record<ClaudeCodeToolAccess, string>> = {
  none: 'no tools: a plain chat; ask for read-only (or more) to let Claude Code read files',
  edit: 'no shell (claudeCodeToolAccess is edit); file tools write only inside the working directories',
  'workspace-write':
    "file tools write only inside the working directories; Bash runs only what Claude Code's own command checks allow there without approval (file operations such as touch, mkdir, rm, redirects), everything else is denied; there is no OS sandbox",
};

const ASKS_NOTE =
  'approvals: Claude Code asks before every command and file change, and Toolbridge checks the level first (file changes outside the working directories are refused at workspace-write)';

const ROOT_NOTE =
  'Claude Code refuses bypassPermissions to root unless IS_SANDBOX=1: full is granted through allow rules for ' +
  `${FULL_ALLOW.split(',').join(', ')} (unconfined); other tools (MCP servers, sub-agents) are denied`;

/**
 * With approvals, Claude Code's default mode asks (over the control protocol, `--permission-prompt-tool
 * stdio`) before every command and file change; reads inside the working directories are not asked.
 */
const ASKING = ['--permission-mode', 'default', '--permission-prompt-tool', 'stdio'];

/** Tool accesses with actions to ask about (none and read-only have none). */
export const ASKS: ReadonlySet<ClaudeCodeToolAccess> = new Set(['edit', 'workspace-write', 'full']);

/**
 * Flags for one tool access. `rootWithoutSandbox`: this process runs as root and the environment
 * has no IS_SANDBOX=1. `asks`: the chat asked for approvals.
 */
export function accessArgs(access: ClaudeCodeToolAccess, rootWithoutSandbox: boolean, asks = false): string[] {
  if (asks && ASKS.has(access)) {
    if (access === 'full') return ASKING;
    return ['--tools', access === 'edit' ? EDIT : `${EDIT},Bash`, ...ASKING, '--strict-mcp-config'];
  }
  switch (access) {
    case 'none':
      return ['--tools', '', ...LOCKED];
    case 'read-only':
      return ['--tools', READ, '--permission-mode', 'dontAsk', ...LOCKED];
    case 'edit':
      return ['--tools', EDIT, '--permission-mode', 'acceptEdits', ...LOCKED];
    case 'workspace-write':
      return ['--tools', `${EDIT},Bash`, '--permission-mode', 'acceptEdits', ...LOCKED];
    case 'full':
      return rootWithoutSandbox
        ? ['--permission-mode', 'dontAsk', '--permission-prompts', 'none', '--allowedTools', FULL_ALLOW]
        : ['--permission-mode', 'bypassPermissions'];
  }
}

/** Whether Claude Code would refuse bypassPermissions here (it does for root, unless told it runs in a sandbox). */
export function refusesBypass(env: NodeJS.ProcessEnv): boolean {
  return process.getuid?.() === 0 && env.IS_SANDBOX !== '1';
}

/**
 * The access of one chat. The level comes from the kit (request, else `claudeCodeToolAccess`, else
 * the `permissions` key, else read-only); a chat for which nobody set any level stays the plain
 * chat it always was (no tools), which grants less than read-only.
 */
export function planAccess(
  request: Pick<ToolRequest, 'permissions'>,
  ctx: Pick<ChatContext, 'config' | 'env' | 'maxPermissions' | 'approvals'>,
  toolAccess: ClaudeCodeToolAccess | undefined,
): AccessPlan {
  const resolved = resolvePermissions(request, ctx, toolAccess ? LEVEL_OF[toolAccess] : undefined);
  const access: ClaudeCodeToolAccess =
    resolved.source === 'tool-config' && !resolved.narrowedFrom
      ? toolAccess!
      : resolved.source === 'default'
        ? 'none'
        : ACCESS_OF[resolved.level];
  const asks = ctx.approvals !== undefined && ASKS.has(access);
  const root = access === 'full' && refusesBypass(ctx.env) && !asks;
  const note = asks ? ASKS_NOTE : root ? ROOT_NOTE : NOTES[access];
  return {
    access,
    args: accessArgs(access, root, asks),
    report: permissionReport(resolved, LEVEL_OF[access], note),
    asks,
  };
}
