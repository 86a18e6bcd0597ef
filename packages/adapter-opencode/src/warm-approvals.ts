import { existsSync } from 'node:fs';
import path from 'node:path';
import { approveAction } from '@toolbridge/adapter-kit';
import type { ApprovalAnswer, ApprovalRequest, ChatContext, PermissionLevel } from '@toolbridge/core';

type Json = Record<string, unknown>;

const rec = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * OpenCode's `permission.asked` (`{id, sessionID, permission, patterns, metadata, always}`) as one
 * ApprovalRequest: `bash` is a command (`metadata.command`), `edit` (edit, write and patch) a file
 * change (`metadata.filepath`; added when the file does not exist yet), anything else a tool call.
 */
export function approvalOfPermission(asked: Json, cwd: string): ApprovalRequest {
  const permission = str(asked.permission) ?? 'tool';
  const metadata = rec(asked.metadata);
  const patterns = Array.isArray(asked.patterns) ? asked.patterns.filter((p): p is string => typeof p === 'string') : [];
  if (permission === 'bash') {
    const command = str(metadata.command) ?? patterns.join(' ');
    return { kind: 'command', title: `Run ${command}`, command, cwd };
  }
  if (permission === 'edit') {
    const file = str(metadata.filepath) ?? patterns[0] ?? '';
    const kind = file && existsSync(path.resolve(cwd, file)) ? 'update' : 'add';
    return { kind: 'file_change', title: `${kind === 'add' ? 'Create' : 'Edit'} ${file}`, changes: [{ path: file, kind }] };
  }
  return { kind: 'tool_call', title: `Call ${permission}`, tool: permission, input: metadata };
}

/** The body of `POST /permission/:id/reply`: "once" (never "always": it approves broad patterns such as `printf *`), or "reject" with why. */
export function permissionReply(answer: ApprovalAnswer): Json {
  return answer.allow ? { reply: 'once' } : { reply: 'reject', ...(answer.message ? { message: answer.message } : {}) };
}

/** Decide one `permission.asked` of a chat with approvals: the level first, then the caller (the kit's `approveAction`). */
export function decidePermission(
  asked: Json,
  ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
  level: PermissionLevel,
  additionalDirs: readonly string[],
): Promise<Json> {
  return approveAction(ctx, level, approvalOfPermission(asked, ctx.cwd), additionalDirs).then(permissionReply);
}
