import { approveAction } from '@toolbridge/adapter-kit';
import type { ApprovalAnswer, ApprovalRequest, ChatContext, PermissionLevel } from '@toolbridge/core';

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Qwen Code's `can_use_tool` (tool name and input, 0.24.4 names) as one Toolbridge approval request. */
export function approvalRequestOf(toolName: string, input: Json, cwd: string): ApprovalRequest {
  if (toolName === 'run_shell_command') {
    const command = str(input.command) ?? '';
    return { kind: 'command', title: `Run ${command.split('\n')[0]!.slice(0, 120)}`, command, cwd: str(input.directory) ?? cwd };
  }
  const file = str(input.file_path) ?? str(input.notebook_path);
  if ((toolName === 'write_file' || toolName === 'edit' || toolName === 'notebook_edit') && file) {
    return { kind: 'file_change', title: `Edit ${file}`, changes: [{ path: file, kind: toolName === 'write_file' ? 'add' : 'update' }] };
  }
  return { kind: 'tool_call', title: `Call ${toolName}`, tool: toolName, input };
}

/**
 * Decide one `can_use_tool` of a warm turn: the level first and the caller (`approvals: "ask"`)
 * through the kit's `approveAction`. Without a caller to ask, a shell command under
 * workspace-write is refused, as in a one-shot run (Qwen Code's shell is not confined to the
 * workspace, so the level alone cannot allow it).
 */
export async function decideToolUse(
  ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
  level: PermissionLevel,
  action: ApprovalRequest,
  additionalDirs: readonly string[],
): Promise<ApprovalAnswer> {
  if (!ctx.approvals && level === 'workspace-write' && action.kind === 'command') {
    return { allow: false, message: 'Refused by Toolbridge: shell commands need an approval under workspace-write' };
  }
  return approveAction(ctx, level, action, additionalDirs);
}
