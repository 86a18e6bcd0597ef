import { existsSync } from 'node:fs';
import path from 'node:path';
import { approveAction, insideRoots } from '@toolbridge/adapter-kit';
import type { ApprovalRequest, ChatContext, PermissionLevel } from '@toolbridge/core';

type Json = Record<string, unknown>;

/** Tools that only read: Claude Code asks about them only outside the working directories. */
const READS = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'WebFetch', 'WebSearch', 'TodoWrite']);
const FILE_TOOLS: Readonly<Record<string, string>> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const short = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** What one `can_use_tool` request asks, in Toolbridge's terms; `read` for a tool that only reads. */
export function approvalOf(toolName: string, input: Json, cwd: string): ApprovalRequest | 'read' {
  if (READS.has(toolName)) return 'read';
  if (toolName === 'Bash') {
    const command = str(input.command) ?? '';
    return { kind: 'command', title: `Run ${short(command)}`, command, cwd };
  }
  const pathKey = FILE_TOOLS[toolName];
  if (pathKey) {
    const file = str(input[pathKey]) ?? '';
    const add = toolName === 'Write' && !existsSync(path.resolve(cwd, file));
    return {
      kind: 'file_change',
      title: `${add ? 'Create' : 'Edit'} ${file}`,
      changes: [{ path: file, kind: add ? 'add' : 'update' }],
    };
  }
  // MCP tools are named mcp__<server>__<tool>.
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  const tool = mcp ? `${mcp[1]}.${mcp[2]}` : toolName;
  return { kind: 'tool_call', title: `Call ${tool}`, tool, input };
}

/**
 * The answer to Claude Code's `can_use_tool` control request (it asks before running a tool its
 * permission mode does not allow by itself): the kit's `approveAction` for actions (the level
 * first, then the caller). A read it asks about lies outside the working directories: allowed
 * at `full`, refused below, as without approvals (where nobody is asked and it is denied).
 */
export async function answerToolUse(
  request: Json,
  ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
  level: PermissionLevel,
  additionalDirs: readonly string[],
): Promise<Json> {
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Json;
  const action = approvalOf(str(request.tool_name) ?? '', input, ctx.cwd);
  if (action === 'read') {
    const file = str(input.file_path) ?? str(input.path);
    const inside = file !== undefined && insideRoots(file, ctx.cwd, [ctx.cwd, ...additionalDirs]);
    return level === 'full' || inside
      ? { behavior: 'allow', updatedInput: input }
      : { behavior: 'deny', message: 'Refused by Toolbridge: reading outside the working directories needs the full permission level' };
  }
  const answer = await approveAction(ctx, level, action, additionalDirs);
  return answer.allow
    ? { behavior: 'allow', updatedInput: input }
    : { behavior: 'deny', message: answer.message ?? 'The user denied this action' };
}

/** The `control_response` line answering one of Claude Code's control requests. */
export function controlResponseLine(requestId: unknown, response: Json): string {
  return JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } }) + '\n';
}
